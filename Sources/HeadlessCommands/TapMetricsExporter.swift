import Foundation
import RouteServer
import TapForwarding
import TapReading
import TokenMetrics
import TokenServer

/// `tap --metrics`: the tap's series at `/metrics` on the route server `--metrics` uses elsewhere,
/// the churning IDs counted from the analysis' ledger at each scrape.
package struct TapMetricsExporter: Sendable {
    package let metrics: TapMetrics
    private let server: NIORouteServer<MetricsPage>

    /// Nil without `--metrics`; a bind failure throws its one line.
    package static func start(
        _ options: MetricsOptions, metrics: TapMetrics?, analysis: TapAnalysis, forwarding: ForwardingGauge
    ) async throws -> TapMetricsExporter? {
        guard let address = options.address, let metrics else { return nil }
        let page = MetricsPage {
            metrics.upstreamConnections(open: forwarding.upstreamOpen, idle: forwarding.upstreamIdle)
            return metrics.exposition(churning: analysis.churning(), unread: analysis.droppedCount)
        }
        let server = NIORouteServer(routes: page, host: address.host, port: address.port)
        let port = try await server.start()
        TapRun.say("metrics on http://\(address.bound(to: port))/metrics")
        return TapMetricsExporter(metrics: metrics, server: server)
    }

    package func stop() async { await server.stop(gracePeriod: 0.25) }
}
