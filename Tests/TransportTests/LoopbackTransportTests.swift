import FlyingFox
import Foundation
import HTTPTransport
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenProviders
import TokenReading

@Suite(.timeLimit(.minutes(15))) struct LoopbackTransportTests {
    func json(_ text: String, status: HTTPStatusCode = .ok) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "application/json"], body: Data(text.utf8))
    }

    @Test func fetchesOverRealHTTPWithHeaders() async throws {
        let seen = Mutex<[String]>([])
        let server = try await LoopbackServer.start { request in
            seen.withLock { $0.append("\(request.path) cookie=\(request.headers[HTTPHeader("Cookie")] ?? "-")") }
            let id = request.path.split(separator: "/").last.map(String.init) ?? ""
            let now = Int(Date().timeIntervalSince1970)
            let jwt = TestJWT.make(kind: .driver, id: id, iat: now, exp: now + 3600)
            return HTTPResponse(statusCode: .ok, body: TestJWT.response(jwt, expiresAtSeconds: now + 3600).body)
        }
        defer { Task { await server.stop() } }
        var endpoint = patient(.sampleBackend(.driver, base: server.base))
        endpoint.headers = [ProviderVocabulary.HTTPHeader(name: "Cookie", value: "session=s3cret")]
        let provider = DriverTokenProvider(endpoint: endpoint, transport: patientTransport)
        let token = try await provider.fetchToken(for: VehicleAuthorizationContext(vehicleID: "vehicle-42"))
        #expect(try JWTInspector.decode(token).claims["authorization"]?["vehicleid"] == .string("vehicle-42"))
        #expect(
            try await provider.fetchToken(for: VehicleAuthorizationContext(vehicleID: "vehicle-42")) == token,
            "the second call is served from the cache")
        #expect(seen.withLock { $0 } == ["/token/driver/vehicle-42 cookie=session=s3cret"])
    }

    /// The endpoint's timeout reaches the transport's timer, which alone ends a fetch from a server
    /// that never answers. The timer waits on a clock the test moves: no wall time decides it.
    @Test func aSilentBackendTimesOut() async throws {
        // Accepts, reads the request, never answers.
        let silent = try RawSocketServer { _ in .hold }
        defer { silent.stop() }
        let clock = SteppedClock()
        var endpoint = TokenEndpoint.sampleBackend(.consumer, base: silent.base)
        endpoint.timeout = 3600
        try await withTransport(.system, clock: clock) { transport in
            let provider = ConsumerTokenProvider(endpoint: endpoint, transport: transport)
            let fetching = Task { try await provider.fetchToken(for: trip("t")) }
            try #require(await eventually { clock.sleeping == 1 }, "the transport's timer is asleep on the clock")
            clock.advance(by: 3600)
            await #expect(throws: FleetAuthError.timeout(seconds: 3600)) { try await fetching.cancellingValue }
        }
    }

    @Test func aDeadServerIsUnreachable() async throws {
        // Nothing listens on port 1 of loopback; the connection is refused at once.
        let provider = ConsumerTokenProvider(
            endpoint: patient(.sampleBackend(.consumer, base: "http://127.0.0.1:1")), transport: patientTransport)
        await #expect(
            throws: FleetAuthError.unreachable(url: "http://127.0.0.1:1/token/consumer/t", reason: "connection refused")
        ) {
            try await provider.fetchToken(for: TripAuthorizationContext(tripID: "t"))
        }
    }

    @Test func aHugeBodyIsCutOff() async throws {
        let server = try await LoopbackServer.start { _ in
            HTTPResponse(statusCode: .ok, body: Data(repeating: 0x41, count: 1 << 20))
        }
        defer { Task { await server.stop() } }
        let provider = ConsumerTokenProvider(
            endpoint: patient(.sampleBackend(.consumer, base: server.base)), transport: patientTransport)
        await #expect(throws: FleetAuthError.bodyTooLarge(limit: 64 * 1024)) {
            try await provider.fetchToken(for: TripAuthorizationContext(tripID: "t"))
        }
    }

    @Test func anErrorStatusCarriesTheBody() async throws {
        let server = try await LoopbackServer.start { _ in
            HTTPResponse(statusCode: .forbidden, body: Data("{\"error\":\"session expired\"}".utf8))
        }
        defer { Task { await server.stop() } }
        let provider = ConsumerTokenProvider(
            endpoint: patient(.sampleBackend(.consumer, base: server.base)), transport: patientTransport)
        await #expect(throws: FleetAuthError.httpStatus(code: 403, body: "{\"error\":\"session expired\"}")) {
            try await provider.fetchToken(for: TripAuthorizationContext(tripID: "t"))
        }
    }
}
