import Foundation
import HTTPTransport
import ProviderVocabulary
import Synchronization
import TapForwarding
import TapReading
import TestSupport
import Testing
import TokenReading

/// The tap end to end over loopback: a backend answering with cookies, odd headers, a redirect,
/// a 500, gzip, a non-JSON body, a chunked body and a stalled one; the client sees through the
/// tap exactly what it sees direct (hop-by-hop headers aside), whatever the reader makes of it.
@Suite(.timeLimit(.minutes(15))) struct ForwardingTests {
    static let now = TestTime.t0
    static let jwt = TestJWT.make(kind: .consumer, id: "trip-1", iat: TestTime.seconds, exp: TestTime.seconds + 3600)
    static let gzip = Data([
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 202, 42, 47, 81, 178, 82, 202, 203, 47, 81, 40, 74, 77, 204,
        201, 169, 84, 170, 5, 0, 191, 29, 177, 228, 20, 0, 0, 0,
    ])

    static func answer(_ head: String, _ body: Data = Data(), stall: Bool = false) -> ScriptedBackend.Answer {
        ScriptedBackend.Answer(bytes: Data((head + "\r\n\r\n").utf8) + body, stall: stall)
    }

    static func script(_ path: String) -> ScriptedBackend.Answer {
        let token = Data(TestJWT.responseBody(jwt, expiresAtSeconds: TestTime.seconds + 3600).utf8)
        switch path {
        case "/token/consumer/trip-1":
            return answer(
                "HTTP/1.1 200 OK\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: session=s3cr3t-cookie; HttpOnly\r\n"
                    + "X-Odd_Header:   spaced  value \r\nx-lower: v\r\nCache-Control: no-store\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(token.count)", token)
        case "/redirect":
            return answer("HTTP/1.1 302 Found\r\nLocation: /token/consumer/trip-1?from=redirect\r\nContent-Length: 0")
        case "/token/driver/vehicle-500":
            return answer(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 5",
                Data("oops\n".utf8))
        case "/token/consumer/trip-gzip":
            return answer(
                "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: application/json\r\nContent-Length: \(gzip.count)",
                gzip)
        case "/token/consumer/trip-text":
            return answer(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 22",
                Data("<html>login</html>\r\n\r\n".utf8))
        case "/token/consumer/trip-chunked":
            let jwt = TestJWT.make(
                kind: .consumer, id: "trip-chunked", iat: TestTime.seconds, exp: TestTime.seconds + 3600)
            let token = Data(TestJWT.responseBody(jwt, expiresAtSeconds: TestTime.seconds + 3600).utf8)
            let parts = [token.prefix(10), token.dropFirst(10).prefix(40), token.dropFirst(50)]
            let chunks = parts.reduce(Data()) {
                $0 + Data((String($1.count, radix: 16) + "\r\n").utf8) + $1 + Data("\r\n".utf8)
            }
            return answer(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json",
                chunks + Data("0\r\n\r\n".utf8))
        case "/token/consumer/trip-stall":
            return answer(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500",
                Data("{\"jwt\":\"eyJ-partial".utf8), stall: true)
        default:
            return answer("HTTP/1.1 404 Not Found\r\nContent-Length: 0")
        }
    }

    /// Headers compared: all but the hop-by-hop ones. `Transfer-Encoding` is the body's framing on
    /// this hop: SwiftNIO writes its own (`transfer-encoding: chunked`, last), so it is compared apart.
    static func endToEnd(_ message: RawHTTP.Message) -> [String] {
        message.headers.filter { !["connection", "keep-alive", "transfer-encoding"].contains($0.name.lowercased()) }
            .map { "\($0.name): \($0.value)" }
    }

    static func framing(_ message: RawHTTP.Message) -> String? {
        message.headers.first { $0.name.lowercased() == "transfer-encoding" }?.value.lowercased()
    }

    @Test func theClientSeesWhatADirectRequestSees() async throws {
        let backend = try ScriptedBackend(script: Self.script)
        defer { backend.stop() }
        let readings = Readings()
        let analysis = TapAnalysis(
            reader: ExchangeReader(), churnLimit: 4, clock: ManualClock(Self.now), sinks: [readings.add])
        let reading = Task { await analysis.run() }
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: analysis.submit)
        let paths = [
            "/token/consumer/trip-1", "/redirect", "/token/driver/vehicle-500", "/token/consumer/trip-gzip",
            "/token/consumer/trip-text", "/token/consumer/trip-chunked",
        ]
        for path in paths {
            let request =
                "GET \(path) HTTP/1.1\r\nHost: tokens.example\r\nCookie: sid=client-cookie-value\r\n"
                + "Authorization: Bearer app-credential-123\r\nX-App-Version: 4.2\r\nConnection: close\r\n\r\n"
            let direct = try RawHTTP.exchange(port: Int(backend.port), request)
            let tapped = try RawHTTP.exchange(port: tap.port, request)
            #expect(tapped.statusLine == direct.statusLine, "\(path)")
            #expect(Self.endToEnd(tapped) == Self.endToEnd(direct), "\(path)")
            #expect(Self.framing(tapped) == Self.framing(direct), "\(path)")
            #expect(tapped.body == direct.body, "\(path)")
            #expect(!direct.body.isEmpty || path == "/redirect")
        }
        // The request went upstream as the client sent it, Connection (hop-by-hop) aside.
        let seen = backend.requests
        #expect(seen.count == paths.count * 2)
        for pair in stride(from: 0, to: seen.count, by: 2) {
            #expect(seen[pair + 1] == seen[pair].replacingOccurrences(of: "Connection: close\r\n", with: ""))
        }
        // A POST's body goes upstream unchanged.
        let body = Data("{\"tripId\":\"trip-1\",\"x\":[1,2,3]}".utf8)
        let post =
            "POST /token/consumer/trip-1 HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        _ = try RawHTTP.exchange(port: tap.port, post, body: body)
        #expect(backend.requests.last?.hasSuffix(String(decoding: body, as: UTF8.self)) == true)

        // A stalled answer reaches the client as far as the upstream sent it.
        let stall = "GET /token/consumer/trip-stall HTTP/1.1\r\nHost: t\r\n\r\n"
        let partial = Data("{\"jwt\":\"eyJ-partial".utf8)
        let direct = try RawHTTP.exchange(port: Int(backend.port), stall, until: { $0.count >= partial.count })
        let tapped = try RawHTTP.exchange(port: tap.port, stall, until: { $0.count >= partial.count })
        #expect(tapped.body == direct.body && tapped.body == partial)
        #expect(Self.endToEnd(tapped) == Self.endToEnd(direct))

        let read = await readings.wait(for: paths.count + 2)
        await tap.stop()
        analysis.finish()
        await reading.cancellingValue
        func verdict(_ id: String) -> TapVerdict? { read.last { $0.id == id }?.verdict }
        #expect(verdict("trip-1") == .ok)
        #expect(read.first { $0.id == "trip-1" }?.fingerprint == TokenFingerprint.of(Self.jwt))
        #expect(verdict("vehicle-500") == .httpError)
        #expect(verdict("trip-gzip") == .unreadable)
        #expect(verdict("trip-text") == .unreadable)
        #expect(verdict("trip-chunked") == .ok)
        #expect(verdict("trip-stall") == .unreadable)
        #expect(read.first { $0.method == "GET" && $0.id == nil }?.status == 302)
    }

    @Test func onlyTheHeadersTheReaderReadsLeaveTheForwarding() async throws {
        let backend = try ScriptedBackend(script: Self.script)
        defer { backend.stop() }
        let (exchanges, handed) = AsyncStream.makeStream(of: TapExchange.self)
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: { handed.yield($0) })
        for path in ["/token/consumer/trip-1", "/token/consumer/trip-gzip"] {
            let request = "GET \(path) HTTP/1.1\r\nHost: tokens.example\r\nConnection: close\r\n\r\n"
            let answer = try RawHTTP.exchange(port: tap.port, request)
            // The client still gets every header, the cookies too.
            #expect(answer.statusLine.hasPrefix("HTTP/1.1 200"))
            if path.hasSuffix("trip-1") {
                #expect(answer.headers.contains { $0.value.contains("session=s3cr3t-cookie") })
            }
        }
        var seen: [String: [String: String]] = [:]
        for await exchange in exchanges {
            seen[exchange.target] = exchange.headers
            if seen.count == 2 { break }
        }
        await tap.stop()
        // Set-Cookie, X-Odd_Header, Cache-Control and Content-Length stay on the forwarding path.
        #expect(seen["/token/consumer/trip-1"] == ["content-type": "application/json"])
        #expect(
            seen["/token/consumer/trip-gzip"] == ["content-type": "application/json", "content-encoding": "gzip"])
        #expect(TapExchange.readHeaders.allSatisfy { $0 == $0.lowercased() })
    }

    @Test func anUnreachableUpstreamIsA502WithItsReason() async throws {
        // Nothing listens there, and no other test's server is given the port while it is held (a
        // stopped backend's port was, under a full run's load, and its token came back as a 200).
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        let readings = Readings()
        let analysis = TapAnalysis(
            reader: ExchangeReader(), churnLimit: 4, clock: ManualClock(Self.now), sinks: [readings.add])
        let reading = Task { await analysis.run() }
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream("http://127.0.0.1:\(port)"),
            report: analysis.submit)
        let answer = try RawHTTP.exchange(
            port: tap.port, "GET /token/driver/v-9 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(answer.statusLine == "HTTP/1.1 502 Bad Gateway")
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(text == "tokendash tap: upstream 127.0.0.1:\(port): connection refused\n")
        let read = await readings.wait(for: 1)
        #expect(read.first?.verdict == .unreachable)
        #expect(read.first?.status == 502)
        #expect(read.first?.id == "v-9")
        await tap.stop()
        analysis.finish()
        await reading.cancellingValue
    }

    @Test func aTakenAddressAndABadUpstreamAreOneLine() async throws {
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream("http://127.0.0.1:9"), report: nil)
        await #expect {
            _ = try await TapServer.start(
                host: "127.0.0.1", port: tap.port, upstream: Upstream("http://127.0.0.1:9"), report: nil)
        } throws: { "\($0)" == "--listen 127.0.0.1:\(tap.port): address already in use" }
        await tap.stop()
        #expect { try Upstream("ftp://x") } throws: { "\($0)".contains("not an http:// or https:// URL") }
        #expect { try Upstream("http://backend:8080/api") } throws: {
            "\($0)".contains("give only scheme, host and port")
        }
    }

    @Test func aClientThatSendsNothingIsClosed() async throws {
        var limits = TapLimits()
        // nginx's 60 s, shortened: the connection must end without a request ever coming.
        limits.clientTimeout = .milliseconds(200)
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream("http://127.0.0.1:9"), limits: limits, report: nil)
        let silent = try RawHTTP.exchange(port: tap.port, "")
        #expect(silent.closed && silent.statusLine.isEmpty)
        await tap.stop()
    }

    /// nginx's `proxy_read_timeout` (60 s) from the limits, shortened: an upstream that takes the
    /// request and never answers gets the client a 504 saying so, and the reading is `unreachable`.
    @Test func anUpstreamThatNeverAnswersIsA504() async throws {
        let backend = try ScriptedBackend { _ in ScriptedBackend.Answer(bytes: Data(), stall: true) }
        defer { backend.stop() }
        var limits = TapLimits()
        limits.upstreamReadTimeout = .milliseconds(300)
        let readings = Readings()
        let analysis = TapAnalysis(
            reader: ExchangeReader(), churnLimit: 4, clock: ManualClock(Self.now), sinks: [readings.add])
        let reading = Task { await analysis.run() }
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), limits: limits,
            report: analysis.submit)
        let answer = try RawHTTP.exchange(
            port: tap.port, "GET /token/driver/v-7 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(answer.statusLine == "HTTP/1.1 504 Gateway Timeout")
        #expect(
            String(decoding: answer.body, as: UTF8.self)
                == "tokendash tap: upstream 127.0.0.1:\(backend.port) did not answer within 300 ms\n")
        let read = await readings.wait(for: 1)
        #expect(read.first?.verdict == .unreachable)
        #expect(read.first?.status == 504)
        #expect(read.first?.id == "v-7")
        // The request reached the upstream once: a timed-out request is not sent again.
        #expect(backend.requests.count == 1)
        await tap.stop()
        analysis.finish()
        await reading.cancellingValue
    }

    @Test func aBodyOverTheLimitIs413() async throws {
        let backend = try ScriptedBackend(script: Self.script)
        defer { backend.stop() }
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: nil)
        let answer = try RawHTTP.exchange(
            port: tap.port, "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n")
        #expect(answer.statusLine == "HTTP/1.1 413 Payload Too Large")
        let garbage = try RawHTTP.exchange(port: tap.port, "\u{1}\u{2} nonsense\r\n\r\n")
        #expect(garbage.statusLine.hasPrefix("HTTP/1.1 400"))
        #expect(backend.requests.isEmpty)
        await tap.stop()
    }

    /// More than 100 header fields is 431, as Envoy answers by default; 100 are forwarded.
    @Test func aHeadOfOver100FieldsIs431() async throws {
        let backend = try ScriptedBackend(script: Self.script)
        defer { backend.stop() }
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: nil)
        func head(fields: Int) -> String {
            "GET /token/consumer/trip-1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                + (0..<(fields - 2)).map { "X-F\($0): 1\r\n" }.joined() + "\r\n"
        }
        let refused = try RawHTTP.exchange(port: tap.port, head(fields: 101))
        #expect(refused.statusLine == "HTTP/1.1 431 Request Header Fields Too Large")
        #expect(
            String(decoding: refused.body, as: UTF8.self)
                == "tokendash tap: request head with 101 header fields, over 100\n")
        #expect(backend.requests.isEmpty, "a refused head never reaches the upstream")
        let forwarded = try RawHTTP.exchange(port: tap.port, head(fields: 100))
        #expect(forwarded.statusLine.hasPrefix("HTTP/1.1 200"))
        #expect(backend.requests.count == 1)
        await tap.stop()
    }
}

/// The readings a tap's analysis handed out, awaited by count.
final class Readings: Sendable {
    // Guards the readings so far and the waiters for a count of them.
    private let state = Mutex<(all: [TappedExchange], waiters: [(Int, CheckedContinuation<[TappedExchange], Never>)])>(
        ([], []))

    @Sendable func add(_ reading: TappedExchange) {
        let ready = state.withLock { state -> [(CheckedContinuation<[TappedExchange], Never>, [TappedExchange])] in
            state.all.append(reading)
            let all = state.all
            let due = state.waiters.filter { $0.0 <= all.count }
            state.waiters.removeAll { $0.0 <= all.count }
            return due.map { ($0.1, all) }
        }
        for (waiter, all) in ready { waiter.resume(returning: all) }
    }

    func wait(for count: Int) async -> [TappedExchange] {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> [TappedExchange]? in
                if state.all.count >= count { return state.all }
                state.waiters.append((count, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
