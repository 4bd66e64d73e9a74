import Foundation
import JSONValues
import JWTKit
import ProviderVocabulary
import Testing
import TokenJudging
import TokenProviders
import TokenReading

@testable import TokenServer

@Suite(.timeLimit(.minutes(15))) struct MintingTests {
    @Test func consumerProviderGetsAVerifiableTripToken() async throws {
        try await withServer { s in
            let provider = ConsumerTokenProvider(endpoint: s.endpoint(.consumer), transport: s.transport)
            let token = try await provider.fetchToken(for: TripAuthorizationContext(tripID: "trip-42"))
            let claims = try await s.verify(token)
            #expect(claims.authorization == ["tripid": "trip-42"])
            #expect(claims.aud == "https://fleetengine.googleapis.com/")
            #expect(claims.iss == TokenServerConfiguration.defaultIssuer)
            #expect(claims.sub == TokenServerConfiguration.defaultIssuer)
            #expect(claims.exp - claims.iat == 3600)
            let jwt = try JWTInspector.decode(token)
            #expect(TokenRules.evaluate(jwt, kind: .consumer, id: "trip-42", now: Date()).worst == .ok)
            #expect(jwt.header["alg"] == .string("RS256"))
            #expect(jwt.header["typ"] == .string("JWT"))
            #expect(jwt.header["kid"] == .string(SharedKey.key.keyID))
        }
    }

    @Test func driverProviderGetsAVerifiableVehicleToken() async throws {
        try await withServer(lifetime: 60) { s in
            let provider = DriverTokenProvider(endpoint: s.endpoint(.driver), transport: s.transport)
            let token = try await provider.fetchToken(for: VehicleAuthorizationContext(vehicleID: "vehicle_7.b"))
            let claims = try await s.verify(token)
            #expect(claims.authorization == ["vehicleid": "vehicle_7.b"])
            #expect(claims.exp - claims.iat == 60)
            let cached = try #require(await provider.cachedToken)
            // The provider read expirationTimestamp (epoch ms) and it agrees with the JWT's exp; the
            // one warning is the demo lifetime's, shorter than the SDKs' five minutes.
            #expect(cached.warnings == ["lifetime: 60 s, under 300 s: the SDKs will fetch again at every call"])
            #expect(cached.expiresAt == Date(timeIntervalSince1970: TimeInterval(claims.exp)))
        }
    }

    /// The session route mints for the SDK's current ID, unless the URL names one, as Google's
    /// Android skeletons do (`…/token/ID`, or `?tripId=`): then that one, so a factory asking
    /// for a stale ID gets what it asked for. The skeletons' own path word is not an ID.
    @Test func theSessionRouteMintsForTheIDTheURLNames() async throws {
        try await withServer { s in
            s.server.setSessionID("vehicle-1", for: .driver)
            s.server.setSessionID("trip-1", for: .consumer)
            for (path, key, id) in [
                ("/session/driver", "vehicleid", "vehicle-1"), ("/session/driver/vehicle-7", "vehicleid", "vehicle-7"),
                ("/session/driver/token", "vehicleid", "vehicle-1"),
                ("/session/consumer/token?tripId=trip-9", "tripid", "trip-9"),
            ] {
                let (status, json) = try await s.json(path)
                #expect(status == 200, "\(path)")
                guard case .string(let token)? = json["jwt"] else {
                    Issue.record("no jwt from \(path)")
                    continue
                }
                #expect(try await s.verify(token).authorization == [key: id], "\(path)")
            }
            #expect(try await s.json("/session/driver/a%3Ab").status == 400)
        }
    }

    @Test func aTokenFromAnotherKeyDoesNotVerify() async throws {
        // Guards the verification itself: a signature by a different key must be refused.
        let other = await TokenMinter(
            key: try SigningKey.generate(), issuer: "x@y.iam.gserviceaccount.com", lifetime: 60)
        let foreign = try await other.mint(.driver, id: "v")
        try await withServer { s in
            await #expect(throws: (any Error).self) { _ = try await s.verify(foreign.jwt) }
        }
    }

    @Test func timesAreWholeSeconds() async throws {
        let minter = await TokenMinter(key: SharedKey.key, issuer: "a@b.iam.gserviceaccount.com", lifetime: 60)
        let token = try await minter.mint(.consumer, id: "t", now: Date(timeIntervalSince1970: 1_800_000_000.987))
        let jwt = try JWTInspector.decode(token.jwt)
        #expect(jwt.claims["iat"] == .int(1_800_000_000))
        #expect(jwt.claims["exp"] == .int(1_800_000_060))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_800_000_060))
    }

    @Test func responseHasTheSampleBackendShape() async throws {
        try await withServer(lifetime: 120) { s in
            let before = Date().timeIntervalSince1970
            let (status, headers, body) = try await s.request("/token/consumer/trip-1")
            let after = Date().timeIntervalSince1970
            #expect(status == 200)
            #expect(headers["cache-control"] == "no-store")
            #expect(headers["content-type"] == "application/json")
            let json = try JSONValue.decode(body)
            let created = try #require(json["creationTimestamp"]?.intValue)
            let expires = try #require(json["expirationTimestamp"]?.intValue)
            #expect(expires - created == 120_000)
            // Minted while the request was out (iat is rounded down to the second). Not "within 5 s of
            // when the test reads it": in a full parallel run the test's task can wait longer than that.
            #expect((before.rounded(.down) - 1...after + 1).contains(Double(created) / 1000))
            let jwt = try JWTInspector.decode(try #require(json["jwt"]?.stringValue))
            #expect(jwt.claims["exp"] == .int(expires / 1000))
        }
    }

    @Test func jwksPublishesTheSigningKey() async throws {
        try await withServer { s in
            let (status, json) = try await s.json("/.well-known/jwks.json")
            #expect(status == 200)
            guard case .array(let keys)? = json["keys"] else {
                Issue.record("no keys array in \(json)")
                return
            }
            #expect(keys.count == 1)
            let key = try #require(keys.first)
            #expect(key["kty"] == .string("RSA"))
            #expect(key["alg"] == .string("RS256"))
            #expect(key["use"] == .string("sig"))
            #expect(key["kid"] == .string(SharedKey.key.keyID))
            #expect(key["e"] == .string("AQAB"))
            // A 2048-bit modulus is 256 bytes: 342 base64url characters, unpadded.
            #expect(key["n"]?.stringValue?.count == 342)
            #expect(key["n"]?.stringValue?.contains("=") == false)
        }
    }

    @Test func healthz() async throws {
        try await withServer { s in
            let (status, json) = try await s.json("/healthz")
            #expect(status == 200)
            #expect(json["status"] == .string("ok"))
        }
    }

    @Test(arguments: [
        // Fleet Engine's ID rule (FleetEngineID): empty, the wildcard, over 64 code points, any of
        // / : ? , #, or not in NFC (an e and a combining acute accent).
        "/token/consumer/", "/token/consumer/*", "/token/consumer/" + String(repeating: "x", count: 65),
        "/token/driver/a%2Fb", "/token/consumer/a%3Ab", "/token/consumer/a%3Fb", "/token/consumer/a%2Cb",
        "/token/consumer/a%23b",
        "/token/driver/cafe%CC%81",
    ])
    func badIDsGet400WithAJSONError(path: String) async throws {
        try await withServer { s in
            let (status, json) = try await s.json(path)
            #expect(status == 400, "\(path)")
            #expect(json["error"]?.stringValue?.isEmpty == false)
            let stats = await s.server.stats()
            #expect(stats.totalMinted == 0)
            #expect(stats.totalErrors == 1)
        }
    }

    /// What Fleet Engine accepts is minted: 64 code points, a space, another script, `;`.
    @Test(arguments: [
        String(repeating: "x", count: 64), "a%20b", "caf%C3%A9", "%E8%BB%8A%E4%B8%A1-7", "a%3Bb",
        String(repeating: "%C3%A9", count: 64),
    ])
    func idsFleetEngineAcceptsAreMinted(id: String) async throws {
        try await withServer { s in
            let (status, _, body) = try await s.request("/token/consumer/" + id)
            #expect(status == 200, "\(id): \(String(decoding: body, as: UTF8.self))")
            let jwt = try JWTInspector.decode(
                String(decoding: body, as: UTF8.self).split(separator: "\"")[3].description)
            #expect(jwt.claims["authorization"]?["tripid"]?.stringValue == id.removingPercentEncoding)
        }
    }

    @Test func unknownPathsGet404() async throws {
        try await withServer { s in
            let (status, json) = try await s.json("/token/rider/x")
            #expect(status == 404)
            #expect(json["error"]?.stringValue?.contains("/token/rider/x") == true)
        }
    }

    @Test func aLifetimeOverAnHourIsRefused() async throws {
        await #expect(throws: TokenServerError.invalidLifetime(3601)) {
            _ = try await EmbeddedTokenServer(
                configuration: TokenServerConfiguration(lifetime: 3601), key: SharedKey.key)
        }
    }

    @Test func aRemoteHostNeedsAllowRemote() async throws {
        await #expect(throws: TokenServerError.remoteNotAllowed("0.0.0.0")) {
            _ = try await EmbeddedTokenServer(
                configuration: TokenServerConfiguration(host: "0.0.0.0"), key: SharedKey.key)
        }
    }

    @Test func aTakenPortFailsFastWithAReason() async throws {
        try await withServer { s in
            let port = try #require(s.base.port)
            let second = try await EmbeddedTokenServer(
                configuration: TokenServerConfiguration(port: UInt16(port)), key: SharedKey.key)
            await #expect(
                throws: TokenServerError.bindFailed(address: "127.0.0.1:\(port)", reason: "address already in use")
            ) {
                _ = try await second.start()
            }
        }
    }
}
