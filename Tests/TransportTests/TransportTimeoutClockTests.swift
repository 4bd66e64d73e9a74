import Foundation
import HTTPTransport
import ProviderVocabulary
import ProxyKit
import TestSupport
import Testing

/// The transport's timeout waits on the clock it is given: a stepped clock fires an hour-long
/// timeout the moment the test moves it, with no real waiting, on either road a request takes.
@Suite(.timeLimit(.minutes(15))) struct TransportTimeoutClockTests {
    /// - Parameter throughProxy: the silent server is an http proxy, so the request goes to it in
    ///   absolute form (SwiftNIO) rather than through AsyncHTTPClient.
    @Test(arguments: [false, true])
    func theTimeoutFiresWhenTheClockIsAdvanced(throughProxy: Bool) async throws {
        // Accepts, reads the request, never answers.
        let silent = try RawSocketServer { _ in .hold }
        defer { silent.stop() }
        let clock = SteppedClock()
        let proxy = throughProxy ? try ProxySettings.fromEnvironment(["http_proxy": silent.base]) : .direct
        let transport = keptForTheRun(try HTTPClientTransport(proxy: proxy, reuseConnections: false, clock: clock))
        let url = throughProxy ? "http://backend.proxy-only.test/token" : silent.base + "/token"
        let request = TransportRequest(url: try #require(URL(string: url)), timeout: 3600)
        let sending = Task { try await transport.send(request) }
        // The fact to wait for: the transport's timer is asleep on the clock.
        while clock.sleeping == 0 { await Task.yield() }
        clock.advance(by: 3599)
        #expect(clock.sleeping == 1, "a second short of the timeout, the timer still waits")
        clock.advance(by: 1)
        let result = await sending.result
        await transport.shutdown()
        #expect(throws: FleetAuthError.timeout(seconds: 3600)) { try result.get() }
    }

    /// AsyncHTTPClient times a connection (its TLS handshake included) on the wall clock, apart
    /// from the request: the limit is the one the transport was given, and its seconds are said.
    /// A fixed 30 s once failed a loaded run that gave its requests 600.
    @Test func aConnectionThatIsNeverMadeRunsOutTheGivenLimitAndSaysItsSeconds() async throws {
        // Accepts and holds: the TLS handshake never completes.
        let silent = try RawSocketServer { _ in .hold }
        defer { silent.stop() }
        let clock = SteppedClock()
        let transport = keptForTheRun(
            try HTTPClientTransport(reuseConnections: false, clock: clock, connectTimeout: 0.25))
        let url = try #require(URL(string: silent.base.replacingOccurrences(of: "http://", with: "https://") + "/t"))
        // The request's own timer never fires: the clock is not moved.
        let sending = Task { try await transport.send(TransportRequest(url: url, timeout: 3600)) }
        let result = await sending.result
        await transport.shutdown()
        #expect(throws: FleetAuthError.timeout(seconds: 0.25)) { try result.get() }
    }
}
