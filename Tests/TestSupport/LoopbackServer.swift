import FleetAuth
import FlyingFox
import Foundation
import HTTPTransport

/// A real HTTP server on 127.0.0.1, on a free port, for the duration of one test.
public struct LoopbackServer: Sendable {
    public let server: HTTPServer
    /// `http://127.0.0.1:PORT`
    public let base: String

    /// Serves every path with `handler`.
    public static func start(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) async throws -> LoopbackServer {
        // Seen once in a full run: listening, yet no address to read. A second server is made
        // rather than the test failing on the harness.
        for _ in 0..<3 {
            let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 5, logger: .disabled)
            await server.appendRoute("*", handler: handler)
            Task { try await server.run() }
            // FlyingFox waits 5 s by default. In a full run the two cooperative threads were once
            // busy with other suites for that long, before the server's task ever ran: patience
            // here, not a failed test of something else.
            try await server.waitUntilListening(timeout: 60)
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
    do { return try HTTPClientTransport(reuseConnections: false) } catch { fatalError("cannot make the test transport: \(error)") }
}()
