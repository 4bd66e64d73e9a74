import FleetAuth
import Foundation
import JWTKit

/// Signs Fleet Engine tokens with one RSA key through jwt-kit. Signing runs off the key
/// collection's actor (jwt-kit hands it to a nonisolated signer), so concurrent mints use all cores.
public struct TokenMinter: Sendable {
    public let key: SigningKey
    public let issuer: String
    public let lifetime: TimeInterval
    private let keys: JWTKeyCollection

    public init(key: SigningKey, issuer: String, lifetime: TimeInterval) async {
        self.key = key
        self.issuer = issuer
        self.lifetime = lifetime
        self.keys = JWTKeyCollection()
        // Sorted keys and unescaped slashes: the same claims always encode the same, and `aud`
        // reads as the URL it is when someone decodes the token by hand.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        await keys.add(
            rsa: key.privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.keyID),
            serializer: DefaultJWTSerializer(jsonEncoder: encoder))
    }

    /// A token for `id` issued at `now` (rounded down to a whole second, since Fleet Engine
    /// wants integer times) and valid for `lifetime` seconds (the minter's own by default).
    public func mint(_ kind: ProviderKind, id: String, now: Date = Date(), lifetime: TimeInterval? = nil) async throws(TokenServerError) -> MintedToken {
        let issuedAt = Int(now.timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt + Int((lifetime ?? self.lifetime).rounded(.down))
        let claims = FleetEngineClaims(issuer: issuer, kind: kind, id: id, issuedAt: issuedAt, expiresAt: expiresAt)
        let jwt: String
        do {
            jwt = try await keys.sign(claims, kid: JWKIdentifier(string: key.keyID))
        } catch {
            throw .signingFailed("\(error)")
        }
        return MintedToken(
            jwt: jwt, kind: kind, id: id,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
    }

    /// The public half of the key, as served at `/.well-known/jwks.json`.
    public var jwks: JSONWebKeySet {
        get throws(TokenServerError) {
            do { return JSONWebKeySet(keys: [try RSAPublicJWK(key.publicKey, keyID: key.keyID)]) } catch {
                throw .signingFailed("cannot export the public key: \(error)")
            }
        }
    }
}
