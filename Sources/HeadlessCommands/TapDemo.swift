import FleetEngineAPI
import Foundation
import HTTPTransport
import ProviderVocabulary
import TokenJudging
import TokenServer

/// `tokendash tap` without `--upstream`: the embedded server stands in for the backend, and a
/// small fleet of simulated devices asks through the tap, each at every update (2 s), and calls
/// the server's Fleet Engine emulator with its token (its calls written as Fleet Engine's logs
/// with `--fleet-engine-log`). Most keep their token until 5 minutes before it expires, as an
/// app's provider should; `careless` of them cache nothing and ask at every update, the churn the
/// tap is there to find.
package struct TapDemo: Sendable {
    package static let devices = 12
    package static let careless = 3
    package static let update: Duration = .seconds(2)

    package let server: EmbeddedTokenServer
    package let baseURL: URL

    package static func start(fleetEngineLog: String? = nil) async throws -> TapDemo {
        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(lifetime: 3600, fleetEngineLog: fleetEngineLog))
        return TapDemo(server: server, baseURL: try await server.start())
    }

    /// Asks through the tap at `tap` until cancelled.
    package func run(tap: String) async {
        guard let transport = try? HTTPClientTransport() else { return }
        let kinds: [ProviderKind] = [.consumer, .driver]
        await withTaskGroup(of: Void.self) { group in
            for device in 0..<Self.devices {
                let kind = kinds[device % 2]
                let id = (kind == .consumer ? "demo-trip-" : "demo-vehicle-") + String(format: "%02d", device)
                let caches = device >= Self.careless
                group.addTask {
                    var token: FetchedToken?
                    let decoder = TokenResponseDecoder(
                        endpoint: TokenEndpoint(kind: kind, urlTemplate: tap + kind.defaultRoutePath))
                    while !Task.isCancelled {
                        if !caches || (token?.expiresAt ?? .distantPast).timeIntervalSinceNow < 300,
                            let url = try? decoder.endpoint.url(for: id),
                            let answer = try? await transport.send(TransportRequest(url: url))
                        {
                            token = try? decoder.decode(answer, id: id, now: Date())
                        }
                        if let token { await call(kind, id: id, token: token.token, transport: transport) }
                        try? await Task.sleep(for: Self.update)
                    }
                }
            }
        }
        await transport.shutdown()
    }

    /// The SDK's Fleet Engine call with `token`, to the server's emulator; its answer is the
    /// emulator's log line, nothing more.
    package func call(_ kind: ProviderKind, id: String, token: String, transport: HTTPClientTransport) async {
        guard
            let request = FleetEngineMethod.sdkCall(for: kind, writes: true).request(
                base: baseURL, provider: server.fleetEngineProject, id: id, token: token, location: .start,
                timeout: 10)
        else { return }
        _ = try? await transport.send(request)
    }

    /// Stops the server; a `--fleet-engine-log` that could not be written, in words.
    package func stop() async -> String? {
        await server.stop()
        return server.fleetEngineLog?.close()
    }
}
