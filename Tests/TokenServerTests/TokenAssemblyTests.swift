import Foundation
import JWTKit
import ProviderVocabulary
import Testing
import TokenReading

@testable import TokenServer

/// The minter assembles tokens itself around jwt-kit's signer; they must be byte for byte what
/// `JWTKeyCollection.sign` makes of the same claims (RS256 signatures are deterministic).
@Suite(.timeLimit(.minutes(15))) struct TokenAssemblyTests {
    /// jwt-kit's own token for `claims`, signed as the minter's collection is set up.
    func jwtKitToken(_ claims: FleetEngineClaims) async throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keys = JWTKeyCollection()
        let kid = JWKIdentifier(string: SharedKey.key.keyID)
        await keys.add(
            rsa: SharedKey.key.privateKey, digestAlgorithm: .sha256, kid: kid,
            serializer: DefaultJWTSerializer(jsonEncoder: encoder))
        return try await keys.sign(claims, kid: kid)
    }

    @Test(arguments: [
        (ProviderKind.consumer, "trip-1", TokenServerConfiguration.defaultIssuer),
        (.driver, "vehicle_7.b", "a@b.iam.gserviceaccount.com"),
        (.deliveryConsumer, "tracking-9", "backend/with/slashes@example.com"),
        (.deliveryDriver, String(repeating: "x", count: 128), "x"),
        // Needs escaping, so it takes jwt-kit's own path; the token must still be the same.
        (.consumer, "t", "quote\"and\\backslash é@example.com"),
    ])
    func tokensAreJWTKitsToTheByte(kind: ProviderKind, id: String, issuer: String) async throws {
        let minter = await TokenMinter(key: SharedKey.key, issuer: issuer, lifetime: 3600)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let minted = try await minter.mint(kind, id: id, now: now)
        let claims = FleetEngineClaims(
            issuer: issuer, kind: kind, id: id, issuedAt: 1_800_000_000, expiresAt: 1_800_003_600)
        #expect(minted.jwt == (try await jwtKitToken(claims)))
    }

    @Test func claimsJSONIsJSONEncodersToTheByte() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for kind in ProviderKind.allCases {
            let claims = FleetEngineClaims(
                issuer: "svc@p.iam.gserviceaccount.com", kind: kind, id: "id-1", issuedAt: 0, expiresAt: 3600)
            let fast = try #require(claims.sortedJSON)
            #expect(
                String(decoding: fast, as: UTF8.self) == String(decoding: try encoder.encode(claims), as: UTF8.self))
        }
        let awkward = FleetEngineClaims(issuer: "tab\there", kind: .driver, id: "v", issuedAt: 0, expiresAt: 1)
        #expect(awkward.sortedJSON == nil)
    }

    @Test func base64URLMatchesFoundationsWithoutPadding() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var encoded: [UInt8] = []
            Base64URL.append(bytes, to: &encoded)
            #expect(
                String(decoding: encoded, as: UTF8.self) == JWTInspector.base64URLEncode(Data(bytes)), "\(length) bytes"
            )
        }
    }
}
