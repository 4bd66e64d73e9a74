import Foundation
import ProviderVocabulary
import TapForwarding
import TapReading
import TestSupport
import Testing
import TokenReading

/// How the tap reads a request and prints what it read: the routes the providers use, read
/// backwards, and `tapped` lines that name tokens by fingerprint and never print them unasked.
@Suite(.timeLimit(.minutes(15))) struct ReadingTests {
    @Test func routesSayWhoseTokenARequestAsksFor() throws {
        let routes = TapRoutes([
            try RouteTemplate("/api/v2/trip/{id}/token", role: .consumer),
            try RouteTemplate("/token?vehicle={vehicleId}", role: .driver),
        ])
        func read(_ target: Substring) -> String? { routes.match(target).map { "\($0.kind.rawValue) \($0.id)" } }
        #expect(read("/api/v2/trip/trip%2F7/token") == "consumer " + "trip/7")
        #expect(read("/token?x=1&vehicle=v-3") == "driver " + "v-3")
        // Google's sample routes, both solutions, without a flag.
        #expect(read("/token/driver/vehicle-1") == "driver " + "vehicle-1")
        #expect(read("/token/delivery_consumer/track-9?x=1") == "delivery_consumer " + "track-9")
        #expect(read("/token/consumer/") == nil)
        // Segments are cut at every slash, the query at the first question mark.
        #expect(read("/token/driver/vehicle-1/") == nil)
        #expect(read("//token/driver/vehicle-1") == nil)
        #expect(read("token/driver/vehicle-1") == nil)
        #expect(read("/token/driver/vehicle-1?") == "driver " + "vehicle-1")
        #expect(read("/token/driver/vehicle-1?next=/token/consumer/x") == "driver " + "vehicle-1")
        #expect(read("/TOKEN/driver/vehicle-1") == nil)
        #expect(read("/healthz") == nil)
        #expect { try RouteTemplate("/token/consumer", role: .consumer) } throws: {
            "\($0)".contains("has no ID placeholder")
        }
    }

    @Test func tappedLinesNameTokensByFingerprint() async {
        let iat = TestTime.seconds
        let jwt = TestJWT.make(kind: .consumer, id: "trip-1", iat: iat, exp: iat + 3600)
        let body = Data(TestJWT.responseBody(jwt, expiresAtSeconds: iat + 3600).utf8)
        let exchange = TapExchange(
            method: "GET", target: "/token/consumer/trip-1", status: 200, body: body, latency: 0.0042,
            time: TestTime.t0)
        let reading = await ExchangeReader().read(exchange, now: TestTime.t0)
        let line = TapLineEncoder().tapped(reading)
        #expect(
            line.contains(#""event":"tapped""#) && line.contains(#""provider":"consumer""#)
                && line.contains(#""id":"trip-1""#))
        #expect(
            line.contains(#""http_status":200"#) && line.contains(#""latency_ms":4.2"#)
                && line.contains(#""verdict":"ok""#))
        #expect(line.contains(#""fingerprint":"\#(TokenFingerprint.of(jwt))""#))
        #expect(!line.contains(jwt))
        #expect(TapLineEncoder(reveal: true).tapped(reading).contains(jwt))

        // A token for another trip is refused by today's rules, and still counted by its fingerprint.
        let other = TapExchange(
            method: "GET", target: "/token/consumer/trip-2", status: 200, body: body, latency: 0.001, time: TestTime.t0)
        let refused = await ExchangeReader().read(other, now: TestTime.t0)
        #expect(refused.verdict == .fail)
        #expect(refused.fingerprint == TokenFingerprint.of(jwt))
        #expect(refused.error?.contains("trip-2") == true)
        #expect(!TapLineEncoder().tapped(refused).contains(jwt))
    }

    /// A backend in step that took 3 s to answer: its Date header was written while the request
    /// was out, so the tap reads no skew, not 3 s.
    @Test func aSlowAnswerIsNoClockSkew() async {
        let iat = TestTime.seconds
        let jwt = TestJWT.make(kind: .consumer, id: "trip-1", iat: iat, exp: iat + 3600)
        let exchange = TapExchange(
            method: "GET", target: "/token/consumer/trip-1", status: 200,
            headers: ["date": HTTPDate.format(TestTime.t0.addingTimeInterval(1))],
            body: Data(TestJWT.responseBody(jwt, expiresAtSeconds: iat + 3600).utf8), latency: 3, time: TestTime.t0)
        let reading = await ExchangeReader().read(exchange, now: TestTime.t0.addingTimeInterval(3))
        #expect(reading.token?.clockSkew == 0)
    }
}
