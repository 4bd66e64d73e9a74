import Foundation
import NIOPosix
import TapForwarding
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tap's upstream connections are a pool shared by its client connections, as nginx's
/// upstream `keepalive`: one is taken for one exchange and given back when the answer ends, so
/// idle clients hold none, clients one after another share one, and one the upstream closes is
/// never taken again. Each tap here runs on one event loop, so it has one pool to count.
@Suite(.timeLimit(.minutes(15))) struct UpstreamPoolTests {
    static func tap(
        _ backend: KeepAliveBackend, keepalive: Int = 16, group: MultiThreadedEventLoopGroup
    ) async throws -> TapServer {
        var limits = TapLimits()
        limits.upstreamKeepalive = keepalive
        return try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), limits: limits, group: group, report: nil)
    }

    /// A GET of `path` on the open connection `fd`, its answer read to its end.
    static func get(_ fd: Int32, _ path: String, close: Bool = false) -> RawHTTP.Message {
        let connection = close ? "Connection: close\r\n" : ""
        RawHTTP.send(fd, Data("GET \(path) HTTP/1.1\r\nHost: t\r\n\(connection)\r\n".utf8))
        return RawHTTP.readMessage(fd, expectBody: false)
    }

    @Test func idleKeepAliveClientsHoldNoUpstreamConnection() async throws {
        let backend = try await KeepAliveBackend()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tap = try await Self.tap(backend, group: group)
        // Each client asks once and stays connected, idle, as an app between token fetches.
        var clients: [Int32] = []
        defer { for fd in clients { close(fd) } }
        for index in 0..<200 {
            let fd = try RawHTTP.connected(port: tap.port)
            clients.append(fd)
            let answer = Self.get(fd, "/token/\(index)")
            #expect(answer.statusLine == "HTTP/1.1 200 OK" && answer.body == Data("/token/\(index)".utf8))
        }
        // One connection carried all 200 exchanges and waits idle; the 200 idle clients hold none.
        #expect(backend.counts.accepted == 1, "the backend accepted \(backend.counts.accepted) connections")
        #expect(tap.forwarding.upstreamOpen == 1 && tap.forwarding.upstreamIdle == 1)
        await tap.stop()
        try await group.shutdownGracefully()
        await backend.stop()
    }

    @Test func clientsOneAfterAnotherReuseOneUpstreamConnection() async throws {
        let backend = try await KeepAliveBackend()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tap = try await Self.tap(backend, group: group)
        for index in 0..<20 {
            let answer = try RawHTTP.exchange(
                port: tap.port, "GET /n/\(index) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(answer.body == Data("/n/\(index)".utf8))
        }
        #expect(backend.counts.accepted == 1)
        #expect(tap.forwarding.upstreamOpened == 1)
        #expect(backend.counts.paths == (0..<20).map { "/n/\($0)" })
        await tap.stop()
        try await group.shutdownGracefully()
        await backend.stop()
    }

    @Test func aConnectionTheUpstreamClosesAfterItsAnswerIsNotReused() async throws {
        let backend = try await KeepAliveBackend()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tap = try await Self.tap(backend, group: group)
        let fd = try RawHTTP.connected(port: tap.port)
        defer { close(fd) }
        // The backend answers `/close` with `Connection: close`: the tap must not give that
        // connection back, and the next requests go on a new one, which then stays.
        let closing = Self.get(fd, "/close")
        #expect(closing.statusLine == "HTTP/1.1 200 OK" && closing.body == Data("/close".utf8))
        for path in ["/a", "/b", "/c"] {
            let answer = Self.get(fd, path)
            #expect(answer.statusLine == "HTTP/1.1 200 OK" && answer.body == Data(path.utf8), "\(path)")
        }
        #expect(backend.counts.accepted == 2, "the backend accepted \(backend.counts.accepted) connections")
        #expect(tap.forwarding.upstreamOpened == 2)
        #expect(await eventually { tap.forwarding.upstreamOpen == 1 })
        await tap.stop()
        try await group.shutdownGracefully()
        await backend.stop()
    }

    /// Pipelined requests (several sent before the first answer) on clients sharing one upstream
    /// connection: each client gets its own answers, in the order it asked.
    @Test func pipelinedClientsGetTheirAnswersInOrder() async throws {
        let backend = try await KeepAliveBackend()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tap = try await Self.tap(backend, keepalive: 1, group: group)
        let clients = 4
        let asks = 6
        let port = tap.port
        let answers = await withTaskGroup(of: (Int, [String]).self) { tasks in
            for client in 0..<clients {
                tasks.addTask { (client, await Self.pipelined(client: client, asks: asks, port: port)) }
            }
            var answers: [Int: [String]] = [:]
            for await (client, bodies) in tasks { answers[client] = bodies }
            return answers
        }
        for client in 0..<clients {
            #expect(answers[client] == (0..<asks).map { "/c\(client)/\($0)" }, "client \(client)")
        }
        #expect(backend.counts.paths.count == clients * asks)
        // Keep-alive 1: at most one connection stays once the clients are done.
        #expect(await eventually { tap.forwarding.upstreamIdle <= 1 && tap.forwarding.upstreamOpen <= 1 })
        await tap.stop()
        try await group.shutdownGracefully()
        await backend.stop()
    }

    /// `asks` GETs sent at once on one connection, the last asking to close; the bodies of the
    /// answers, in the order they came.
    static func pipelined(client: Int, asks: Int, port: Int) async -> [String] {
        await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
            Thread {
                guard let fd = try? RawHTTP.connected(port: port) else { return done.resume(returning: []) }
                defer { close(fd) }
                let requests = (0..<asks).map { ask in
                    "GET /c\(client)/\(ask) HTTP/1.1\r\nHost: t\r\n" + (ask == asks - 1 ? "Connection: close\r\n" : "")
                        + "\r\n"
                }
                RawHTTP.send(fd, Data(requests.joined().utf8))
                // The last asked to close: the tap closes after its answer.
                done.resume(returning: Self.bodies(of: RawHTTP.readToEnd(fd)))
            }.start()
        }
    }

    /// All connections busy: the tap opens more (nginx's way, so no client waits on the tap), and
    /// once the burst has been answered keeps `--upstream-keepalive` of them.
    @Test func aBurstOpensMoreConnectionsAndKeepsOnlyTheCapIdle() async throws {
        let burst = 6
        // No answer until all six requests are at the backend: six exchanges at once.
        let backend = try await KeepAliveBackend(hold: burst)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tap = try await Self.tap(backend, keepalive: 2, group: group)
        let statuses = await withTaskGroup(of: String.self) { tasks in
            for index in 0..<burst {
                tasks.addTask {
                    await withCheckedContinuation { done in
                        Thread {
                            let answer = try? RawHTTP.exchange(
                                port: tap.port, "GET /burst/\(index) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                            done.resume(returning: answer?.statusLine ?? "")
                        }.start()
                    }
                }
            }
            var statuses: [String] = []
            for await status in tasks { statuses.append(status) }
            return statuses
        }
        #expect(statuses == Array(repeating: "HTTP/1.1 200 OK", count: burst))
        #expect(backend.counts.accepted == burst)
        #expect(tap.forwarding.upstreamIdle == 2)
        #expect(await eventually { tap.forwarding.upstreamOpen == 2 && backend.counts.open == 2 })
        await tap.stop()
        try await group.shutdownGracefully()
        await backend.stop()
    }

    /// The bodies of the answers in `raw`, one after another, each framed by its `Content-Length`.
    static func bodies(of raw: Data) -> [String] {
        var bodies: [String] = []
        var rest = raw
        while let headEnd = rest.range(of: Data("\r\n\r\n".utf8)) {
            let head = String(decoding: rest[..<headEnd.lowerBound], as: UTF8.self)
            let size =
                head.split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
            let body = rest[headEnd.upperBound...].prefix(size)
            bodies.append(String(decoding: body, as: UTF8.self))
            rest = Data(rest[headEnd.upperBound...].dropFirst(size))
        }
        return bodies
    }
}
