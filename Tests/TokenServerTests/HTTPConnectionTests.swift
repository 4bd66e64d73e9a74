import Faults
import Foundation
import TestSupport
import Testing

@testable import TokenServer

/// The server's HTTP/1.1 on a raw socket, where URLSession would hide it: keep-alive, pipelining,
/// HTTP/1.0, the Date header and the drop fault.
@Suite(.timeLimit(.minutes(15))) struct HTTPConnectionTests {
    /// A blocking TCP connection to the server, read with a timeout on a thread of its own: a
    /// blocking read on the cooperative pool would hold up every other test's tasks meanwhile.
    final class Connection: Sendable {
        let fd: Int32

        init(_ base: URL) throws {
            fd = try Self.connected(to: UInt16(base.port ?? 0))
        }

        /// A socket connected to 127.0.0.1:`port`; closed again if it cannot connect.
        private static func connected(to port: UInt16) throws -> Int32 {
            let fd = socket(AF_INET, SocketConstants.stream, 0)
            // The suite's patience: every read ends on its answer or a close; this only bounds a bug.
            var timeout = timeval(tv_sec: 600, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(fd)
                throw POSIXError(.ECONNREFUSED)
            }
            return fd
        }

        deinit { close(fd) }

        func send(_ text: String) {
            var text = text
            _ = text.withUTF8 { Foundation.send(fd, $0.baseAddress, $0.count, SocketConstants.noSignal) }
        }

        /// Everything the server sends until `done` says it is enough, or the connection closes or times out.
        func read(until done: @escaping @Sendable (String) -> Bool = { _ in false }) async -> (
            text: String, closed: Bool
        ) {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: self.readBlocking(until: done)) }.start()
            }
        }

        private func readBlocking(until done: (String) -> Bool) -> (text: String, closed: Bool) {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !done(String(decoding: bytes, as: UTF8.self)) {
                let got = recv(fd, &buffer, buffer.count, 0)
                if got == 0 { return (String(decoding: bytes, as: UTF8.self), true) }
                // A signal (SIGCHLD from the end-to-end tests' processes) interrupts a read with a
                // timeout instead of restarting it.
                if got < 0 && errno == EINTR { continue }
                if got < 0 { break }
                bytes += buffer[0..<got]
            }
            return (String(decoding: bytes, as: UTF8.self), false)
        }
    }

    static func responses(_ n: Int) -> @Sendable (String) -> Bool {
        { text in text.components(separatedBy: "\r\n\r\n").count > n && text.components(separatedBy: "}").count > n }
    }

    @Test func oneConnectionServesManyRequestsInOrder() async throws {
        try await withServer { s in
            let connection = try Connection(s.base)
            for id in ["a", "b"] {
                connection.send("GET /token/consumer/trip-\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
                let (text, closed) = await connection.read(until: Self.responses(1))
                #expect(!closed)
                #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
                #expect(text.lowercased().contains("\r\ncontent-type: application/json\r\n"))
                #expect(text.lowercased().contains("\r\ncache-control: no-store\r\n"))
                #expect(text.contains("\r\nDate: ") && text.contains(" GMT\r\n"))
                let jwt = try #require(
                    text.components(separatedBy: "\"jwt\":\"").last?.components(separatedBy: "\"").first)
                #expect(try await s.verify(jwt).authorization == ["tripid": "trip-\(id)"])
            }
            // Pipelined: both sent at once, answered in the order asked.
            connection.send("GET /token/driver/v1 HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let (text, _) = await connection.read(until: Self.responses(2))
            let first = try #require(text.range(of: "\"jwt\""))
            let second = try #require(text.range(of: "\"status\":\"ok\""))
            #expect(first.lowerBound < second.lowerBound)
        }
    }

    /// What the server sends for `request` on a new connection, until it closes (or 5 s pass).
    static func answer(to request: String, fault: Fault? = nil) async throws -> (text: String, closed: Bool) {
        var result = ("", false)
        try await withServer { s in
            if let fault { await s.server.setFault(fault, for: .both) }
            let connection = try Connection(s.base)
            connection.send(request)
            result = await connection.read()
        }
        return result
    }

    @Test func http10ClosesAfterTheAnswer() async throws {
        let (text, closed) = try await Self.answer(to: "GET /healthz HTTP/1.0\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.0 200 OK\r\n"))
        #expect(text.hasSuffix("{\"status\":\"ok\"}"))
        #expect(closed)
    }

    @Test func theDropFaultClosesWithoutAnAnswer() async throws {
        let (text, closed) = try await Self.answer(to: "GET /token/driver/v1 HTTP/1.1\r\nHost: x\r\n\r\n", fault: .drop)
        #expect(text.isEmpty)
        #expect(closed)
    }

    @Test func aMalformedRequestGets400AndTheConnectionCloses() async throws {
        let (text, closed) = try await Self.answer(to: "NOT HTTP AT ALL\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 400"))
        #expect(closed)
    }

    @Test func stopClosesIdleKeepAliveConnections() async throws {
        let running = try await RunningServer.start()
        let connection = try Connection(running.base)
        connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = await connection.read(until: Self.responses(1))
        await running.stop()
        let (_, closed) = await connection.read()
        #expect(closed)
    }
}
