import Foundation
import Testing

@testable import RouteServer

/// The request target as the routes see it: what FlyingFox used to hand over (dot segments
/// resolved, percent escapes decoded, no trailing slash), now done by the routes' own parser.
@Suite(.timeLimit(.minutes(15))) struct RouteRequestTests {
    @Test(arguments: [
        ("/token/consumer/trip-1", "/token/consumer/trip-1"),
        ("/token/consumer/", "/token/consumer"),
        ("/", "/"),
        ("/token/driver/a%2Db", "/token/driver/a-b"),
        ("/token/driver/a%2Fb", "/token/driver/a/b"),
        ("/token/driver/caf%C3%A9", "/token/driver/café"),
        ("/token/./driver/../consumer/t", "/token/consumer/t"),
        ("/../stats", "/stats"),
        ("/token/driver/100%", "/token/driver/100%"),
    ])
    func pathsAreStandardizedAndDecoded(target: String, path: String) {
        #expect(RouteRequest(method: "GET", target: target).path == path)
    }

    @Test func queryParametersAreDecodedAndTheFirstWins() {
        let request = RouteRequest(method: "PUT", target: "/faults/both/latency?ms=250&ms=9&note=a+b%21&flag")
        #expect(request.path == "/faults/both/latency")
        #expect(request.query == ["ms": "250", "note": "a b!", "flag": ""])
    }
}
