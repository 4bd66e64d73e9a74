import FlyingFox
import Foundation
import HTTPTransport
import ProviderVocabulary
import Synchronization

/// A real HTTP server on 127.0.0.1, on a free port, for the duration of one test.
public struct LoopbackServer: Sendable {
    public let server: HTTPServer
    /// `http://127.0.0.1:PORT`
    public let base: String

    /// Serves every path with `handler`.
    public static func start(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) async throws
        -> LoopbackServer
    {
        // Seen once in a full run: listening, yet no address to read. A second server is made
        // rather than the test failing on the harness.
        for _ in 0..<3 {
            let server = HTTPServer(
                address: try .inet(ip4: "127.0.0.1", port: 0), timeout: patientTimeout, logger: .disabled)
            await server.appendRoute("*", handler: handler)
            Task { try await server.run() }
            // FlyingFox waits 5 s by default. In a full run the two cooperative threads were once
            // busy with other suites for that long before the server's task ever ran, and beside
            // four CPU hogs for over 60 s: the suite's patience here, its time limit bounding a hang.
            try await server.waitUntilListening(timeout: patientTimeout)
            if case .ip4(_, let port)? = await server.listeningAddress {
                return LoopbackServer(server: server, base: "http://127.0.0.1:\(port)")
            }
            await server.stop(timeout: 1)
        }
        throw FleetAuthError.other("no port")
    }

    public func stop() async { await server.stop(timeout: 1) }
}

/// One real HTTP client for the whole run, with the system's trust. It lives as long as the
/// process and is never shut down: AsyncHTTPClient traps on a client dropped while running.
public let sharedTransport: HTTPClientTransport = {
    do { return try HTTPClientTransport(reuseConnections: false, connectTimeout: patientTimeout) } catch {
        fatalError("cannot make the test transport: \(error)")
    }
}()

/// A request timeout for tests that judge an answer, not a timeout: AsyncHTTPClient's own deadline
/// is wall time, and a loaded machine once took over 5 s for a loopback answer. The suite's time
/// limit bounds a hang.
public let patientTimeout: TimeInterval = 600

/// The same, but its request timeouts wait on a clock no one advances: for tests that judge an
/// answer, not a timeout, so a loaded machine never turns a slow answer into "did not answer
/// within 5 s"; a hang is ended by the suite's time limit instead.
public let patientTransport: HTTPClientTransport = {
    do {
        return try HTTPClientTransport(reuseConnections: false, clock: SteppedClock(), connectTimeout: patientTimeout)
    } catch {
        fatalError("cannot make the test transport: \(error)")
    }
}()

/// Every transport a test made, held until the process ends: a test cancelled by its time limit
/// never reaches its `shutdown()`, and AsyncHTTPClient traps on a client dropped while running,
/// which took the whole run down with it (seen beside four CPU hogs).
private let transportsOfTheRun = Mutex<[HTTPClientTransport]>([])

/// `transport`, kept for the whole run so that no cancellation can drop it unshut.
public func keptForTheRun(_ transport: HTTPClientTransport) -> HTTPClientTransport {
    transportsOfTheRun.withLock { $0.append(transport) }
    return transport
}
