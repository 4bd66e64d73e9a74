import FlyingFox
import Foundation
import HTTPTransport
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenProviders

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The hardening matrix through the provider: a bad answer is reported, nothing from it is cached,
/// and the previous token is served only while it is still valid.
@Suite(.timeLimit(.minutes(15))) struct HostileProviderTests {
    @Test(arguments: HostileMatrix.cases)
    func aBadAnswerKeepsTheValidTokenOnlyWhileValid(_ hostile: HostileCase) async throws {
        let clock = ManualClock(HostileMatrix.now)
        let hostileNow = Mutex(false)
        let transport = FakeTransport { request in
            if hostileNow.withLock({ $0 }) { return hostile.response }
            let t = Int(clock.now().timeIntervalSince1970)
            return TestJWT.response(
                TestJWT.make(kind: .consumer, id: requestedID(request), iat: t, exp: t + 600), expiresAtSeconds: t + 600
            )
        }
        let provider = ConsumerTokenProvider(
            endpoint: .sampleBackend(.consumer, base: "http://b"), transport: transport,
            refreshMargin: 0, clock: clock)
        let good = try await provider.fetchToken(for: trip(HostileMatrix.id))
        hostileNow.withLock { $0 = true }
        do {
            try await provider.forceRefresh()
            Issue.record("\(hostile.name) was accepted")
        } catch {
            #expect((error as? FleetAuthError)?.description == hostile.message)
        }
        #expect(await provider.cachedToken?.token == good, "nothing from the bad answer is cached")
        #expect(try await provider.fetchToken(for: trip(HostileMatrix.id)) == good, "the valid token is still served")
        clock.advance(by: 600)
        await #expect(throws: FleetAuthError.self, "an expired token is never served") {
            try await provider.fetchToken(for: trip(HostileMatrix.id))
        }
        #expect(await provider.cachedToken == nil)
    }

    @Test func retryAfterIsObeyedBeyondTheBackoff() async throws {
        let clock = ManualClock(HostileMatrix.now)
        let transport = FakeTransport { _ in
            TransportResponse(status: 429, body: Data("slow down".utf8), headers: ["Retry-After": "30"])
        }
        // Without Retry-After the first retry would come after 1 s.
        let provider = ConsumerTokenProvider(
            endpoint: .sampleBackend(.consumer, base: "http://b"), transport: transport,
            backoff: BackoffPolicy(initial: 1, maximum: 60, jitter: 0), clock: clock)
        await #expect(throws: FleetAuthError.httpStatus(code: 429, body: "slow down", retryAfter: 30)) {
            try await provider.fetchToken(for: trip("t"))
        }
        clock.advance(by: 29)
        await #expect(
            throws: FleetAuthError.backingOff(
                retryInSeconds: 1,
                lastError: "backend answered HTTP 429 Too Many Requests (Retry-After 30 s): slow down")
        ) {
            try await provider.fetchToken(for: trip("t"))
        }
        #expect(transport.count == 1, "no request before the server's Retry-After")
        clock.advance(by: 1)
        await #expect(throws: FleetAuthError.httpStatus(code: 429, body: "slow down", retryAfter: 30)) {
            try await provider.fetchToken(for: trip("t"))
        }
        #expect(transport.count == 2)
    }
}

/// The same over real sockets on loopback, for what only a real connection can do wrong.
@Suite(.serialized, .timeLimit(.minutes(15))) struct HostileBackendTests {
    /// With the suite's patience and the patient transport, unless a test times a request on a
    /// transport whose clock it moves.
    func provider(
        _ base: String, timeout: TimeInterval = patientTimeout, transport: any TokenTransport = patientTransport
    ) -> ConsumerTokenProvider {
        var endpoint = TokenEndpoint.sampleBackend(.consumer, base: base)
        endpoint.timeout = timeout
        return ConsumerTokenProvider(endpoint: endpoint, transport: transport, refreshMargin: 0)
    }

    @Test func aConnectionResetMidBodyIsReported() async throws {
        let server = try RawSocketServer { connection in
            RawSocketServer.send(
                connection,
                Data(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{\"jwt\":\"eyJhbGciOiJSUzI1NiJ9."
                        .utf8))
            return .reset
        }
        defer { server.stop() }
        await #expect(
            throws: FleetAuthError.unreachable(
                url: "\(server.base)/token/consumer/t",
                reason: "connection reset by the backend (TCP RST) before the response was complete")
        ) {
            try await provider(server.base).fetchToken(for: trip("t"))
        }
    }

    @Test func aStalledBackendTimesOutWhileTheValidTokenIsStillServed() async throws {
        // The first connection gets a good token; every later one is accepted and never answered:
        // only our timer ends the refresh (without it the suite's time limit fails the test).
        let answered = Mutex(0)
        let server = try RawSocketServer { connection in
            guard
                answered.withLock({
                    $0 += 1
                    return $0
                }) == 1
            else { return .hold }
            let t = Int(Date().timeIntervalSince1970)
            let body = TestJWT.response(
                TestJWT.make(kind: .consumer, id: "t", iat: t, exp: t + 600), expiresAtSeconds: t + 600
            ).body
            RawSocketServer.send(
                connection,
                Data("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body)
            return .close
        }
        defer { server.stop() }
        // The timer waits on a clock the test moves: no wall time decides when the refresh ends.
        let clock = SteppedClock()
        try await withTransport(.system, clock: clock) { transport in
            let provider = provider(server.base, timeout: 3600, transport: transport)
            let good = try await provider.fetchToken(for: trip("t"))
            let refresh = Task { try await provider.forceRefresh() }
            #expect(await eventually { await provider.isFetching && clock.sleeping == 1 })
            // The caller (the SDK, the UI) is answered from the cache while the request still hangs.
            #expect(try await provider.fetchToken(for: trip("t")) == good)
            #expect(await provider.isFetching, "answered before the stalled request ended")
            clock.advance(by: 3600)
            await #expect(throws: FleetAuthError.timeout(seconds: 3600)) { try await refresh.cancellingValue }
            #expect(await provider.cachedToken?.token == good)
        }
    }

    @Test func anEndlessChunkedBodyIsCutAtTheCap() async throws {
        let server = try RawSocketServer { connection in
            guard
                RawSocketServer.send(
                    connection,
                    Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                )
            else { return .close }
            let chunk = Data("4000\r\n".utf8) + Data(repeating: 0x20, count: 0x4000) + Data("\r\n".utf8)
            // 10 MB at most; the client hangs up long before.
            var chunks = 0
            while chunks < 640, RawSocketServer.send(connection, chunk) { chunks += 1 }
            return .close
        }
        defer { server.stop() }
        await #expect(throws: FleetAuthError.bodyTooLarge(limit: 64 * 1024)) {
            try await provider(server.base).fetchToken(for: trip("t"))
        }
    }

    @Test func statusesAndRetryAfterArriveOverHTTP() async throws {
        let server = try await LoopbackServer.start { request in
            switch request.path.split(separator: "/").last {
            case "t429":
                HTTPResponse(
                    statusCode: .tooManyRequests, headers: [FlyingFox.HTTPHeader("Retry-After"): "7"],
                    body: Data("slow down".utf8))
            case "t401": HTTPResponse(statusCode: .unauthorized, body: Data())
            default:
                HTTPResponse(
                    statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                    body: Data("<html><title>Gateway</title></html>".utf8))
            }
        }
        defer { Task { await server.stop() } }
        let p = provider(server.base)
        await #expect(throws: FleetAuthError.httpStatus(code: 429, body: "slow down", retryAfter: 7)) {
            try await p.fetchToken(for: trip("t429"))
        }
        await #expect(throws: FleetAuthError.httpStatus(code: 401, body: "")) {
            try await p.fetchToken(for: trip("t401"))
        }
        await #expect(throws: FleetAuthError.notJSON("an HTML page titled \"Gateway\", often a proxy's or login page"))
        {
            try await p.fetchToken(for: trip("html"))
        }
    }
}
