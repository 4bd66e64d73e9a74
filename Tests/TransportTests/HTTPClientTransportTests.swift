import FlyingFox
import Foundation
import HTTPTransport
import ProviderVocabulary
import ProxyKit
import Synchronization
import TestSupport
import Testing
import TokenProviders
import TokenReading

/// HTTPS with a CA made in the test: trusted through `--cacert`, refused without it, and each
/// refusal says why.
@Suite(.timeLimit(.minutes(15))) struct TLSTransportTests {
    let body: Data = {
        let t = Int(Date().timeIntervalSince1970)
        return TestJWT.response(TestJWT.make(kind: .consumer, id: "t", iat: t, exp: t + 600), expiresAtSeconds: t + 600)
            .body
    }()

    func serve(
        _ pki: TestPKI, dnsNames: [String] = ["localhost"], ips: [[UInt8]] = [[127, 0, 0, 1]],
        validity: ClosedRange<Date> = Date() - 3600...Date() + 86_400
    ) async throws -> TLSTestServer {
        let (certificate, key) = try pki.leaf(dnsNames: dnsNames, ips: ips, validity: validity)
        return try await TLSTestServer.start(certificate: certificate, key: key, body: body)
    }

    func request(_ server: TLSTestServer) throws -> TransportRequest {
        guard let url = URL(string: server.base + "/token/consumer/t") else {
            throw FleetAuthError.invalidURL(server.base)
        }
        return TransportRequest(url: url, timeout: patientTimeout)
    }

    func failure(_ trust: HTTPClientTransport.Trust, _ server: TLSTestServer) async throws -> String {
        let request = try request(server)
        return try await withTransport(trust) { transport in
            do {
                _ = try await transport.send(request)
                return "no error"
            } catch {
                return (error as? FleetAuthError)?.description ?? "not a FleetAuthError: \(error)"
            }
        }
    }

    @Test func aPrivateCAIsTrustedWithCacert() async throws {
        let pki = try TestPKI()
        let server = try await serve(pki)
        defer { Task { await server.stop() } }
        let request = try request(server)
        let response = try await withTransport(.certificates(pemFile: pki.caFile)) { try await $0.send(request) }
        #expect(response.status == 200)
        #expect(response.body == body)
    }

    @Test func withoutCacertTheCertificateIsUntrustedAndItsIssuerNamed() async throws {
        let pki = try TestPKI(name: "Private Fleet CA")
        let server = try await serve(pki)
        defer { Task { await server.stop() } }
        let message = try await failure(.system, server)
        #expect(
            message
                == "backend unreachable at \(server.base)/token/consumer/t: TLS: untrusted certificate (issuer: CN=Private Fleet CA); pass its CA with --cacert FILE"
        )
    }

    @Test func anotherCAsFileDoesNotHelp() async throws {
        let pki = try TestPKI(name: "Private Fleet CA")
        let other = try TestPKI(name: "Some Other CA")
        let server = try await serve(pki)
        defer { Task { await server.stop() } }
        #expect(
            try await failure(.certificates(pemFile: other.caFile), server).contains(
                "untrusted certificate (issuer: CN=Private Fleet CA)"))
    }

    @Test func aCertificateForAnotherNameIsRefusedAndSaysSo() async throws {
        let pki = try TestPKI()
        let server = try await serve(pki, dnsNames: ["api.example.com"], ips: [])
        defer { Task { await server.stop() } }
        let message = try await failure(.certificates(pemFile: pki.caFile), server)
        #expect(
            message.hasSuffix("TLS: wrong host name: the certificate is for api.example.com, not 127.0.0.1"),
            "\(message)")
    }

    @Test func anExpiredCertificateIsRefusedAndSaysSo() async throws {
        let pki = try TestPKI()
        let expiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 86_400).rounded(.down))
        let server = try await serve(pki, validity: expiry - 86_400...expiry)
        defer { Task { await server.stop() } }
        let message = try await failure(.certificates(pemFile: pki.caFile), server)
        #expect(
            message.contains("TLS: the backend's certificate expired on \(expiry.formatted(.iso8601))"), "\(message)")
    }

    @Test func insecureSkipsVerification() async throws {
        let pki = try TestPKI()
        let server = try await serve(
            pki, dnsNames: ["api.example.com"], ips: [], validity: Date() - 7200...Date() - 3600)
        defer { Task { await server.stop() } }
        let request = try request(server)
        let response = try await withTransport(.insecure) { transport in
            #expect(transport.isInsecure)
            return try await transport.send(request)
        }
        #expect(response.status == 200)
    }

    @Test func anUnreadableCAFileStopsAtStart() throws {
        #expect(throws: FleetAuthError.self) {
            _ = try HTTPClientTransport(trust: .certificates(pemFile: "/nonexistent/ca.pem"))
        }
    }
}

/// What URLSession on Linux got wrong or could not say, over real sockets.
@Suite(.timeLimit(.minutes(15))) struct HTTPClientTransportTests {
    /// On the patient transport: the answer is judged, not its time.
    func get(_ url: String, headers: [ProviderVocabulary.HTTPHeader] = []) async throws -> TransportResponse {
        guard let url = URL(string: url) else { throw FleetAuthError.invalidURL(url) }
        return try await patientTransport.send(TransportRequest(url: url, headers: headers, timeout: patientTimeout))
    }

    /// The failure a GET ends in, on the patient transport: a redirect chain is 11 round trips to
    /// a loopback server whose handlers share the cooperative pool with the whole test run, and
    /// these tests judge the message, not the time.
    func failure(_ url: String) async -> FleetAuthError? {
        do {
            _ = try await get(url)
            return nil
        } catch {
            return error as? FleetAuthError ?? .other("not a FleetAuthError: \(error)")
        }
    }

    @Test func anIPv6LiteralWorks() async throws {
        let server = HTTPServer(address: try .inet6(ip6: "::1", port: 0), timeout: patientTimeout, logger: .disabled)
        await server.appendRoute("*") { request in
            let now = Int(Date().timeIntervalSince1970)
            let id = request.path.split(separator: "/").last.map(String.init) ?? ""
            return HTTPResponse(
                statusCode: .ok,
                body: TestJWT.response(
                    TestJWT.make(kind: .driver, id: id, iat: now, exp: now + 600), expiresAtSeconds: now + 600
                ).body)
        }
        let running = Task { try await server.run() }
        defer { running.cancel() }
        // FlyingFox's own 5 s default is a wall-clock bound a loaded run missed; the suite's limit bounds it instead.
        try await server.waitUntilListening(timeout: patientTimeout)
        guard case .ip6(_, let port)? = await server.listeningAddress else {
            throw FleetAuthError.other("no IPv6 port")
        }
        let provider = DriverTokenProvider(
            endpoint: patient(.sampleBackend(.driver, base: "http://[::1]:\(port)")), transport: patientTransport)
        let token = try await provider.fetchToken(for: vehicle("v-6"))
        #expect(try JWTInspector.decode(token).claims["authorization"]?["vehicleid"] == .string("v-6"))
        await server.stop(timeout: 1)
    }

    @Test func aBodyThatStallsAfterTheHeadTimesOut() async throws {
        // AsyncHTTPClient's own deadline ends with the response head; the body needs our timer.
        let headSent = Mutex(false)
        let server = try RawSocketServer { connection in
            RawSocketServer.send(connection, Data("HTTP/1.1 200 OK\r\nContent-Length: 4000\r\n\r\n{\"jwt\":".utf8))
            headSent.withLock { $0 = true }
            return .hold
        }
        defer { server.stop() }
        // Without the timer this never returns, and the suite's time limit fails the test; the
        // error is the timer's own. It waits on a clock the test moves once the head is out, so no
        // wall time decides it (AsyncHTTPClient's deadline, wall time, is the hour's).
        let clock = SteppedClock()
        let url = try #require(URL(string: "\(server.base)/t"))
        try await withTransport(.system, clock: clock) { transport in
            let sending = Task { try await transport.send(TransportRequest(url: url, timeout: 3600)) }
            try #require(
                await eventually { headSent.withLock { $0 } && clock.sleeping == 1 },
                "the head sent, the transport's timer asleep")
            clock.advance(by: 3600)
            await #expect(throws: FleetAuthError.timeout(seconds: 3600)) { _ = try await sending.cancellingValue }
        }
    }

    @Test func anUnknownHostIsADNSFailure() async {
        #expect(
            await failure("http://no-such-host.invalid:8080/t")
                == .unreachable(
                    url: "http://no-such-host.invalid:8080/t", reason: "DNS: no such host \"no-such-host.invalid\""))
    }

    @Test func aRedirectLoopIsNamedWithItsHopCount() async throws {
        let server = try await LoopbackServer.start { request in
            HTTPResponse(statusCode: .found, headers: [.location: request.path.hasSuffix("/a") ? "/loop/b" : "/loop/a"])
        }
        defer { Task { await server.stop() } }
        let a = "\(server.base)/loop/a"
        let b = "\(server.base)/loop/b"
        #expect(
            await failure(a)
                == .unreachable(
                    url: a,
                    reason: "redirect loop: after 2 hops the backend sent us back to \(a) (\(a) -> \(b) -> \(a))"))
    }

    @Test func tooManyRedirectsAreCounted() async throws {
        let hits = Mutex(0)
        let server = try await LoopbackServer.start { request in
            let n = Int(request.path.split(separator: "/").last ?? "") ?? 0
            hits.withLock { $0 += 1 }
            return HTTPResponse(statusCode: .temporaryRedirect, headers: [.location: "/hop/\(n + 1)"])
        }
        defer { Task { await server.stop() } }
        let start = "\(server.base)/hop/0"
        #expect(
            await failure(start)
                == .unreachable(
                    url: start, reason: "too many redirects: gave up after 10 (the next was to \(server.base)/hop/11)"))
        #expect(hits.withLock { $0 } == 11, "the first request and 10 redirects")
    }

    @Test func aRedirectIsFollowedAndCredentialsStayWithTheirOrigin() async throws {
        let seen = Mutex<[String]>([])
        let other = try await LoopbackServer.start { request in
            seen.withLock {
                $0.append("other \(request.path) cookie=\(request.headers[FlyingFox.HTTPHeader("Cookie")] ?? "-")")
            }
            return HTTPResponse(statusCode: .ok, body: Data("{}".utf8))
        }
        defer { Task { await other.stop() } }
        let first = try await LoopbackServer.start { request in
            seen.withLock {
                $0.append("first \(request.path) cookie=\(request.headers[FlyingFox.HTTPHeader("Cookie")] ?? "-")")
            }
            return request.path == "/start"
                ? HTTPResponse(statusCode: .movedPermanently, headers: [.location: "/moved"])
                : HTTPResponse(statusCode: .found, headers: [.location: "\(other.base)/elsewhere"])
        }
        defer { Task { await first.stop() } }
        let response = try await get(
            "\(first.base)/start", headers: [ProviderVocabulary.HTTPHeader(name: "Cookie", value: "session=s3cret")])
        #expect(response.status == 200)
        #expect(
            seen.withLock { $0 } == [
                "first /start cookie=session=s3cret", "first /moved cookie=session=s3cret", "other /elsewhere cookie=-",
            ])
    }

    @Test(arguments: [(HTTPStatusCode.noContent, 204), (HTTPStatusCode.ok, 200)])
    func anEmptyAnswerNamesItsStatus(_ status: HTTPStatusCode, _ code: Int) async throws {
        let server = try await LoopbackServer.start { _ in HTTPResponse(statusCode: status) }
        defer { Task { await server.stop() } }
        let provider = ConsumerTokenProvider(
            endpoint: patient(.sampleBackend(.consumer, base: server.base)), transport: patientTransport)
        await #expect(throws: FleetAuthError.notJSON("backend answered HTTP \(code) with an empty body")) {
            try await provider.fetchToken(for: trip("t"))
        }
    }

    @Test func secretsInTheURLNeverReachTheMessage() async {
        let url =
            "http://fleet:hunter2@127.0.0.1:1/token/consumer/t?api_key=SECRET-KEY-123&region=eu&X-Goog-Signature=abcdef0123"
        guard let error = await failure(url) else {
            Issue.record("no failure")
            return
        }
        #expect(
            error == .unreachable(url: url, reason: "connection refused"),
            "the error keeps the URL, only its sentence hides")
        #expect(
            error.description
                == "backend unreachable at http://‹hidden›@127.0.0.1:1/token/consumer/t?api_key=‹hidden›&region=eu&X-Goog-Signature=‹hidden›: connection refused"
        )
    }

    @Test(arguments: ["a/b", "..", ".", "a+b&c=d;e", "ü space", "%41", "q?x#y", "a.b"])
    func theBackendReceivesExactlyTheTypedID(_ id: String) async throws {
        // The path as a normalising server sees it (FlyingFox resolves dot segments, then decodes),
        // the query as sent.
        let seen = Mutex<[(path: String, query: String)]>([])
        let server = try await LoopbackServer.start { request in
            seen.withLock { $0.append((request.path, request.target.query())) }
            return HTTPResponse(statusCode: .ok, body: Data("{}".utf8))
        }
        defer { Task { await server.stop() } }
        let inPath = TokenEndpoint(kind: .consumer, urlTemplate: server.base + "/token/consumer/{tripId}")
        let inQuery = TokenEndpoint(kind: .consumer, urlTemplate: server.base + "/token?kind=trip")
        // The patient transport: this judges the path and query, not how fast a loaded run answers.
        #expect(
            try await patientTransport.send(TransportRequest(url: try inPath.url(for: id), timeout: patientTimeout))
                .status == 200)
        #expect(
            try await patientTransport.send(TransportRequest(url: try inQuery.url(for: id), timeout: patientTimeout))
                .status == 200)
        let requests = seen.withLock { $0 }
        try #require(requests.count == 2)
        let pathPrefix = "/token/consumer/"
        #expect(
            requests[0].path.hasPrefix(pathPrefix) && String(requests[0].path.dropFirst(pathPrefix.count)) == id,
            "path: \(requests[0].path)")
        let items = requests[1].query.split(separator: "&").map {
            $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        }
        #expect(
            items.count == 2 && items.first?.first == "kind" && items.last?.first == "tripId",
            "query: \(requests[1].query)")
        #expect(
            items.last.flatMap { $0.count == 2 ? String($0[1]).removingPercentEncoding : nil } == id,
            "query: \(requests[1].query)")
    }

    @Test func anHTTPDateRetryAfterIsObeyedByTheProvider() async throws {
        let clock = ManualClock(HostileMatrix.now)
        // RFC 850, the obsolete form, 30 s after the provider's now.
        let retryAt = "Friday, 15-Jan-27 08:00:30 GMT"
        #expect(HTTPDate.parse(retryAt, now: HostileMatrix.now) == HostileMatrix.now + 30)
        let hits = Mutex(0)
        let server = try await LoopbackServer.start { _ in
            hits.withLock { $0 += 1 }
            return HTTPResponse(
                statusCode: .serviceUnavailable, headers: [FlyingFox.HTTPHeader("Retry-After"): retryAt],
                body: Data("busy".utf8))
        }
        defer { Task { await server.stop() } }
        let provider = ConsumerTokenProvider(
            endpoint: patient(.sampleBackend(.consumer, base: server.base)), transport: patientTransport,
            backoff: BackoffPolicy(initial: 1, maximum: 60, jitter: 0), clock: clock)
        await #expect(throws: FleetAuthError.httpStatus(code: 503, body: "busy", retryAfter: 30)) {
            try await provider.fetchToken(for: trip("t"))
        }
        clock.advance(by: 29)
        await #expect(
            throws: FleetAuthError.backingOff(
                retryInSeconds: 1, lastError: "backend answered HTTP 503 Service Unavailable (Retry-After 30 s): busy")
        ) {
            try await provider.fetchToken(for: trip("t"))
        }
        #expect(hits.withLock { $0 } == 1, "no request before the server's Retry-After")
        clock.advance(by: 1)
        // Asked again at the server's date, which is now: Retry-After 0 s.
        await #expect(throws: FleetAuthError.httpStatus(code: 503, body: "busy", retryAfter: 0)) {
            try await provider.fetchToken(for: trip("t"))
        }
        #expect(hits.withLock { $0 } == 2)
    }
}

/// Each response shape over real HTTP, through the provider, with no --token-key/--expiry-key.
@Suite(.timeLimit(.minutes(15))) struct ResponseShapeLoopbackTests {
    static let shapes: [(String, String)] = [
        (
            "on-demand sample {jwt, expirationTimestamp}",
            #"{"jwt":"JWT","creationTimestamp":NOWMS,"expirationTimestamp":EXPMS}"#
        ),
        (
            "last-mile sample {token, expiration_timestamp_ms}",
            #"{"token":"JWT","creation_timestamp_ms":NOWMS,"expiration_timestamp_ms":EXPMS}"#
        ),
        ("{access_token, expires_in s}", #"{"access_token":"JWT","expires_in":600,"token_type":"Bearer"}"#),
        ("{token, expires_in s}", #"{"token":"JWT","expires_in":"600"}"#),
        ("a bare JWT (text body), expiry from exp", "JWT"),
        ("token only {jwt}, expiry from exp", #"{"jwt":"Bearer JWT"}"#),
        ("{data.token, data.expires_at} as configured", #"{"data":{"token":"JWT","expires_at":"ISO"}}"#),
    ]

    @Test(arguments: shapes.indices)
    func eachShapeIsReadAndNamed(_ index: Int) async throws {
        let (name, template) = Self.shapes[index]
        // One instant for the backend and the provider: on a loaded machine the answer took 7 s,
        // and a wall clock then read "expires_in 600" as disagreeing with the token's exp.
        let clock = ManualClock(Date(timeIntervalSince1970: TimeInterval(Int(Date().timeIntervalSince1970))))
        let server = try await LoopbackServer.start { request in
            let now = Int(clock.now().timeIntervalSince1970)
            let jwt = TestJWT.make(
                kind: .consumer, id: requestedID(TransportRequest(url: URL(fileURLWithPath: request.path))), iat: now,
                exp: now + 600)
            let body = template.replacingOccurrences(of: "JWT", with: jwt)
                .replacingOccurrences(of: "NOWMS", with: "\(now * 1000)").replacingOccurrences(
                    of: "EXPMS", with: "\((now + 600) * 1000)"
                )
                .replacingOccurrences(
                    of: "ISO",
                    with: ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(now + 600))))
            let type = template == "JWT" ? "text/plain" : "application/json"
            return HTTPResponse(statusCode: .ok, headers: [.contentType: type], body: Data(body.utf8))
        }
        defer { Task { await server.stop() } }
        var endpoint = TokenEndpoint.sampleBackend(.consumer, base: server.base)
        if name.hasSuffix("as configured") {
            (endpoint.tokenKey, endpoint.expiryKey) = ("data.token", "data.expires_at")
        }
        endpoint.timeout = patientTimeout
        let provider = ConsumerTokenProvider(endpoint: endpoint, transport: sharedTransport, clock: clock)
        let token = try await provider.fetchToken(for: trip("trip-5"))
        let cached = try #require(await provider.cachedToken)
        #expect(cached.token == token)
        #expect(cached.shape == name)
        #expect(cached.expiresAt.timeIntervalSince(clock.now()) == 600, "the expiry was read: \(cached.expiresAt)")
        #expect(cached.warnings.isEmpty, "\(cached.warnings)")
    }
}
