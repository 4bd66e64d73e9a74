import ArgumentParser
import Fleet
import Foundation
import LiveSession
import ProviderVocabulary
import RouteServer
import TokenMetrics

/// The running `--metrics` endpoint: a `ProviderMetrics` fed by the session's events, served
/// at `/metrics` by the same SwiftNIO route server the embedded backend uses.
package struct MetricsExporter: Sendable {
    package let metrics: ProviderMetrics
    private let server: NIORouteServer<MetricsPage>
    private let collector: Task<Void, Never>

    /// Subscribes to the session and binds `options`' address; nil without `--metrics`. On a
    /// bind failure it prints one line (`command: cannot listen on …`) and exits 1; the command's
    /// teardown then stops the session started before it.
    package static func start(
        _ options: MetricsOptions, session: BackendSession, backend: BackendOptions, command: String
    )
        async throws -> MetricsExporter?
    {
        guard let address = options.address else { return nil }
        let kinds = session.solution.kinds.filter { session.roles.contains($0.role) }
        let metrics = ProviderMetrics(
            members: Dictionary(uniqueKeysWithValues: kinds.map { ($0, backend.initialIDs($0)) }),
            pacing: session.pacing)
        let stream = session.events.subscribe(buffer: 1 << 16)
        let collector = Task { await metrics.consume(stream) }
        let page = MetricsPage { metrics.exposition(now: Date()) }
        let server = NIORouteServer(routes: page, host: address.host, port: address.port)
        let port: UInt16
        do {
            port = try await server.start()
        } catch {
            say("\(error)", as: command)
            // The session is its command's to stop, with whatever else it started.
            collector.cancel()
            throw ExitCode(1)
        }
        let bound = address.bound(to: port)
        say("metrics on http://\(bound)/metrics", as: command)
        return MetricsExporter(metrics: metrics, server: server, collector: collector)
    }

    /// Before the session stops, the reverse of the start: the endpoint closes, then the collector
    /// stops reading the session's events.
    package func stop() async {
        await server.stop(gracePeriod: 0.25)
        collector.cancel()
    }
}
