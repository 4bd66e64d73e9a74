import FleetAuth
import Foundation
import HTTPTransport
import TestSupport

/// Runs `body` with a transport of its own trust and proxy, shut down afterwards. Its timeouts
/// wait on a clock no one advances: these tests judge answers, and a loaded machine must not
/// turn a slow one into a timeout (TransportTimeoutClockTests step the clock to judge timeouts).
func withTransport<T>(
    _ trust: HTTPClientTransport.Trust, proxy: ProxySettings = .direct,
    _ body: (HTTPClientTransport) async throws -> T
) async throws -> T {
    let transport = try HTTPClientTransport(trust: trust, proxy: proxy, clock: SteppedClock())
    do {
        let result = try await body(transport)
        await transport.shutdown()
        return result
    } catch {
        await transport.shutdown()
        throw error
    }
}
