import Faults
import FleetEngineAPI
import Foundation
import JSONValues
import JWTKit
import ProviderVocabulary
import TestSupport
import Testing

@testable import TokenServer

/// The embedded Fleet Engine over loopback: each SDK call as the SDKs send it (the client's own
/// request builder), authenticated as Fleet Engine does, refused in Google's error format.
@Suite(.timeLimit(.minutes(15))) struct FleetEngineEmulatorTests {
    /// A token from the server's token route for `id` (so the resource exists), or minted by
    /// hand for claims the route does not make.
    static func routeToken(_ s: RunningServer, _ kind: ProviderKind, _ id: String) async throws -> String {
        let (status, json) = try await s.json("/token/\(kind.rawValue)/\(id)")
        #expect(status == 200)
        return try #require(json["jwt"]?.stringValue ?? json["token"]?.stringValue)
    }

    static func call(
        _ s: RunningServer, _ method: FleetEngineMethod, id: String, token: String,
        provider: String? = nil
    ) async throws -> FleetEngineAnswer {
        let request = try #require(
            method.request(
                base: s.base, provider: provider ?? s.server.fleetEngineProject, id: id,
                token: token, location: .start, timeout: 5))
        let response = try await sharedTransport.send(request)
        return FleetEngineAnswer.reading(
            response, method: method,
            resource: method.resource(provider: provider ?? s.server.fleetEngineProject, id: id),
            latency: 0, fingerprint: "", rules: .ok)
    }

    @Test func eachSDKCallWithItsOwnTokenIsAnswered() async throws {
        try await withServer { s in
            let calls: [(FleetEngineMethod, ProviderKind, String)] = [
                (.updateVehicle, .driver, "vehicle-1"), (.getVehicle, .driver, "vehicle-1"),
                (.getTrip, .consumer, "trip-1"),
                (.updateDeliveryVehicle, .deliveryDriver, "van-1"), (.getDeliveryVehicle, .deliveryDriver, "van-1"),
                (.getTaskTrackingInfo, .deliveryConsumer, "tracking-1"),
            ]
            for (method, kind, id) in calls {
                let token = try await Self.routeToken(s, kind, id)
                let answer = try await Self.call(s, method, id: id, token: token)
                #expect(answer.httpStatus == 200 && answer.status == "OK", "\(method): \(answer.summary)")
            }
        }
    }

    @Test func anUpdateEchoesTheLocationItWasSent() async throws {
        try await withServer { s in
            let token = try await Self.routeToken(s, .driver, "vehicle-1")
            let request = try #require(
                FleetEngineMethod.updateVehicle.request(
                    base: s.base, provider: s.server.fleetEngineProject, id: "vehicle-1", token: token,
                    location: FleetEngineLocation(latitude: 1.5, longitude: -2.25), timeout: 5))
            let response = try await sharedTransport.send(request)
            let json = try JSONValue.decode(response.body)
            #expect(json["name"]?.stringValue == "providers/\(s.server.fleetEngineProject)/vehicles/vehicle-1")
            #expect(json["lastLocation"]?["location"]?["latitude"]?.numberValue == 1.5)
        }
    }

    @Test func aTokenForAnotherVehicleIsRefusedWithTheMismatchNamed() async throws {
        try await withServer { s in
            _ = try await Self.routeToken(s, .driver, "vehicle-2")
            let other = try await Self.routeToken(s, .driver, "vehicle-1")
            let answer = try await Self.call(s, .updateVehicle, id: "vehicle-2", token: other)
            #expect(answer.httpStatus == 403)
            #expect(answer.status == "PERMISSION_DENIED")
            #expect(
                answer.message
                    == "authorization.vehicleid is \"vehicle-1\", which does not cover providers/tokendash/vehicles/vehicle-2"
            )
        }
    }

    @Test func aTripTokenCannotUpdateAVehicle() async throws {
        try await withServer { s in
            _ = try await Self.routeToken(s, .driver, "vehicle-1")
            let trip = try await Self.routeToken(s, .consumer, "vehicle-1")
            let answer = try await Self.call(s, .updateVehicle, id: "vehicle-1", token: trip)
            #expect(answer.httpStatus == 403)
            #expect(
                answer.message
                    == "a token with authorization.tripid may not call UpdateVehicle: it needs authorization.vehicleid")
        }
    }

    @Test func theWildcardCoversEveryVehicle() async throws {
        try await withServer { s in
            _ = try await Self.routeToken(s, .driver, "vehicle-9")
            let now = Date()
            let minted = try await s.server.minter.mint(.driver, id: "*", now: now, lifetime: 600)
            let answer = try await Self.call(s, .getVehicle, id: "vehicle-9", token: minted.jwt)
            #expect(answer.httpStatus == 200)
        }
    }

    @Test func anIDNeverMintedForIsNotFound() async throws {
        try await withServer { s in
            let minted = try await s.server.minter.mint(.driver, id: "ghost-1", lifetime: 600)
            let answer = try await Self.call(s, .getVehicle, id: "ghost-1", token: minted.jwt)
            #expect(answer.httpStatus == 404 && answer.status == "NOT_FOUND")
            #expect(answer.tokenVerdict == .accepted)
        }
    }

    @Test func timesAreJudgedByFleetEngineClockWithTenMinutesOfSkewOnIat() async throws {
        try await withServer { s in
            _ = try await Self.routeToken(s, .driver, "vehicle-1")
            let now = Date()
            let expired = try await s.server.minter.mint(
                .driver, id: "vehicle-1", now: now.addingTimeInterval(-700), lifetime: 600)
            #expect(
                try await Self.call(s, .getVehicle, id: "vehicle-1", token: expired.jwt).message.hasPrefix(
                    "JWT expired"))
            let skewed = try await s.server.minter.mint(
                .driver, id: "vehicle-1", now: now.addingTimeInterval(540), lifetime: 600)
            #expect(try await Self.call(s, .getVehicle, id: "vehicle-1", token: skewed.jwt).httpStatus == 200)
            let future = try await s.server.minter.mint(
                .driver, id: "vehicle-1", now: now.addingTimeInterval(720), lifetime: 600)
            let refused = try await Self.call(s, .getVehicle, id: "vehicle-1", token: future.jwt)
            #expect(refused.httpStatus == 401 && refused.status == "UNAUTHENTICATED")
            #expect(refused.message.contains("in the future, beyond 600 s"))
        }
    }

    @Test func aSignatureFromAnotherKeyOrNoBearerIsUnauthenticated() async throws {
        try await withServer { s in
            _ = try await Self.routeToken(s, .driver, "vehicle-1")
            let forged = TestJWT.make(
                kind: .driver, id: "vehicle-1", lifetime: 600, account: TokenServerConfiguration.defaultIssuer)
            let answer = try await Self.call(s, .getVehicle, id: "vehicle-1", token: forged)
            #expect(answer.httpStatus == 401)
            #expect(answer.message.hasPrefix("JWT signature does not verify against the keys of tokendash-local@"))
            let request = try #require(
                FleetEngineMethod.getVehicle.request(
                    base: s.base, provider: "tokendash", id: "vehicle-1",
                    token: "", location: .start, timeout: 5))
            let bare = try await sharedTransport.send(request)
            #expect(bare.status == 401)
        }
    }

    /// Claims of any shape, signed with the server's own key: the signature holds, so each
    /// refusal must name the claim, and no number may trap the server.
    struct AnyClaims: JWTPayload {
        var claims: [String: JSONValue]
        init(_ claims: [String: JSONValue]) { self.claims = claims }
        init(from decoder: any Decoder) throws { claims = try [String: JSONValue](from: decoder) }
        func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    @Test func oddClaimsSignedWithTheRightKeyAreRefusedByName() async throws {
        try await withServer { s in
            _ = try await Self.routeToken(s, .driver, "vehicle-1")
            let keys = JWTKeyCollection()
            await keys.add(
                rsa: SharedKey.key.privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: SharedKey.key.keyID)
            )
            let now = Int64(Date().timeIntervalSince1970)
            let base: [String: JSONValue] = [
                "iss": .string(s.server.minter.issuer), "sub": .string(s.server.minter.issuer),
                "aud": .string(FleetEngineLimits.audience), "iat": .int(now), "exp": .int(now + 600),
                "authorization": .object(["vehicleid": .string("vehicle-1")]),
            ]
            func refusal(_ changes: [String: JSONValue]) async throws -> String {
                let token = try await keys.sign(
                    AnyClaims(base.merging(changes) { $1 }), kid: JWKIdentifier(string: SharedKey.key.keyID))
                let answer = try await Self.call(s, .getVehicle, id: "vehicle-1", token: token)
                #expect(answer.httpStatus == 401 || answer.httpStatus == 403, "\(answer.summary)")
                return answer.message
            }
            #expect(
                try await refusal(["aud": .array([.string(FleetEngineLimits.audience)])]).hasPrefix("JWT aud is [\""))
            #expect(try await refusal(["iat": .double(Double(now) + 0.5)]) == "JWT iat and exp must both be integers")
            #expect(
                try await refusal(["iat": .int(Int64.min), "exp": .int(Int64.max)]).hasPrefix(
                    "JWT lifetime exp - iat is beyond any"))
            #expect(try await refusal(["iat": .int(Int64.max)]).contains("s in the future, beyond 600 s"))
            #expect(
                try await refusal(["authorization": .object(["vehicleid": .int(7)])])
                    == "authorization.vehicleid is not a string")
            #expect(
                try await refusal(["authorization": .string("vehicle-1")]).hasPrefix(
                    "the token has no authorization claim"))
        }
    }

    @Test func anotherProjectsPathIsRefused() async throws {
        try await withServer { s in
            let token = try await Self.routeToken(s, .driver, "vehicle-1")
            let answer = try await Self.call(s, .getVehicle, id: "vehicle-1", token: token, provider: "someone-else")
            #expect(answer.httpStatus == 403)
            #expect(
                answer.message.contains("belongs to project tokendash, not providers/someone-else/vehicles/vehicle-1"))
        }
    }

    @Test func fleetEngineFaultsActOnTheCallsNotOnMinting() async throws {
        try await withServer { s in
            let token = try await Self.routeToken(s, .driver, "vehicle-1")
            await s.server.setFault(.fleetEngineUnavailable, for: .driver)
            // Minting goes on as before.
            _ = try await Self.routeToken(s, .driver, "vehicle-1")
            let down = try await Self.call(s, .getVehicle, id: "vehicle-1", token: token)
            #expect(down.httpStatus == 503 && down.status == "UNAVAILABLE" && down.tokenVerdict == .unknown)
            await s.server.setFault(.revokedKey, for: .driver)
            let revoked = try await Self.call(s, .getVehicle, id: "vehicle-1", token: token)
            #expect(revoked.httpStatus == 401 && revoked.message.contains("revoked key"))
            await s.server.setFault(.clockSkew, for: .driver)
            let fresh = try await Self.routeToken(s, .driver, "vehicle-1")
            let skewed = try await Self.call(s, .getVehicle, id: "vehicle-1", token: fresh)
            #expect(skewed.httpStatus == 401 && skewed.message.contains("clock is 15 min behind"))
            // The consumer side is untouched.
            let trip = try await Self.routeToken(s, .consumer, "trip-1")
            #expect(try await Self.call(s, .getTrip, id: "trip-1", token: trip).httpStatus == 200)
        }
    }
}
