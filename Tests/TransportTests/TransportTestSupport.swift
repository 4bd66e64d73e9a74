import Foundation
import HTTPTransport
import ProviderVocabulary
import ProxyKit
import TestSupport

/// Runs `body` with a transport of its own trust and proxy, shut down afterwards. Its timeouts
/// wait on a clock no one advances unless the test passes one it moves: these tests judge answers,
/// and a loaded machine must not turn a slow one into a timeout (TransportTimeoutClockTests step
/// the clock to judge timeouts).
func withTransport<T>(
    _ trust: HTTPClientTransport.Trust, proxy: ProxySettings = .direct, clock: SteppedClock = SteppedClock(),
    _ body: (HTTPClientTransport) async throws -> T
) async throws -> T {
    let transport = keptForTheRun(
        try HTTPClientTransport(trust: trust, proxy: proxy, clock: clock, connectTimeout: patientTimeout))
    do {
        let result = try await body(transport)
        await transport.shutdown()
        return result
    } catch {
        await transport.shutdown()
        throw error
    }
}

/// `endpoint` with the suite's patience for its request timeout: for a test that judges the
/// answer, not its time. The endpoint's default (10 s) is wall time in AsyncHTTPClient's own
/// deadline, and a loaded run once took longer than that for a loopback answer.
func patient(_ endpoint: TokenEndpoint) -> TokenEndpoint {
    var endpoint = endpoint
    endpoint.timeout = patientTimeout
    return endpoint
}
