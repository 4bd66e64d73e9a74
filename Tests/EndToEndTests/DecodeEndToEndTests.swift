import FleetAuth
import Foundation
import Testing

/// `tokendash decode` as a developer uses it on a token copied from their backend.
@Suite struct DecodeEndToEndTests {
    static func part(_ object: [String: Any]) -> String {
        JWTInspector.base64URLEncode((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }

    static func token(trip: String, expiresIn: Int) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return part(["alg": "RS256", "typ": "JWT"]) + "." + part([
            "aud": "https://fleetengine.googleapis.com/", "iat": now + expiresIn - 600, "exp": now + expiresIn,
            "authorization": ["tripid": trip],
        ]) + ".c2lnbmF0dXJl"
    }

    @Test func aGoodTokenPassesItsChecks() throws {
        let result = try BinaryRunner.run(["decode", Self.token(trip: "trip-7", expiresIn: 300)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""tripid" : "trip-7""#))
        #expect(result.stdout.contains("checks:  ok (trip ID trip-7)"))
        #expect(result.stdout.contains(" s left)"))
    }

    @Test func aTokenForAnotherTripFails() throws {
        let result = try BinaryRunner.run(["decode", "--trip-id", "trip-8", Self.token(trip: "trip-7", expiresIn: 300)])
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"authorization.tripid is "trip-7", not "trip-8""#))
    }

    @Test func anExpiredTokenFailsButIsStillShown() throws {
        let result = try BinaryRunner.run(["decode", "-"], stdin: Self.token(trip: "trip-7", expiresIn: -30))
        #expect(result.status == 1)
        #expect(result.stdout.contains("expired 3"))
        #expect(result.stderr.hasPrefix("tokendash decode: token expired 3") || result.stderr.contains("token expired 3"))
    }

    /// Found after fuzzing the decoders: `decode` itself turned exp into an Int and trapped.
    @Test(arguments: ["1e300", "-1e300", "9223372036854775807", "-9223372036854775808"])
    func anAbsurdExpIsReportedNotACrash(exp: String) throws {
        let claims = "{\"aud\":\"https://fleetengine.googleapis.com/\",\"iat\":1,\"exp\":\(exp),\"authorization\":{\"tripid\":\"t\"}}"
        let token = Self.part(["alg": "RS256"]) + "." + JWTInspector.base64URLEncode(Data(claims.utf8)) + ".c2ln"
        let result = try BinaryRunner.run(["decode", token])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("expires: epoch ") && result.stdout.contains("centur"), "\(result.stdout)")
        #expect(result.stderr.hasPrefix("tokendash decode: token fails Fleet Engine's checks: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func garbageIsOneClearLine() throws {
        let result = try BinaryRunner.run(["decode", "not-a-token"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("token is not a JWT: expected 3 dot-separated parts, found 1"))
    }
}
