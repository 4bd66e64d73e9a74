import FlyingFox
import Foundation
import HTTPTransport
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing

/// A fleet's requests to a far backend are not held to AsyncHTTPClient's 8 connections: at 200 ms
/// that was 40 requests a second, whatever the ramp allowed.
@Suite(.timeLimit(.minutes(15))) struct ConnectionsPerHostTests {
    /// The backend holds every request until 24 are in at once: only a transport with 24
    /// connections to it ever gets an answer (with 8, the 9th waits for one that never comes,
    /// and the suite's time limit fails the test).
    @Test func twentyFourRequestsAreInFlightAtOnceOnTwentyFourConnections() async throws {
        let arrived = Mutex(0)
        let gate = Gate()
        let server = try await LoopbackServer.start { _ in
            if arrived.withLock({
                $0 += 1
                return $0
            }) >= 24 {
                await gate.open()
            }
            await gate.wait()
            return HTTPResponse(statusCode: .ok, body: Data("ok".utf8))
        }
        defer { Task { await server.stop() } }
        let transport = keptForTheRun(
            try HTTPClientTransport(reuseConnections: false, connectionsPerHost: 24, connectTimeout: patientTimeout))
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for n in 0..<24 {
                group.addTask {
                    guard let url = URL(string: "\(server.base)/t/\(n)") else { return nil }
                    return try? await transport.send(TransportRequest(url: url, timeout: patientTimeout)).status
                }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        await transport.shutdown()
        #expect(statuses.count == 24 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(arrived.withLock { $0 } == 24)
    }
}
