import Foundation
import JWTKit
import ProviderVocabulary

/// Signs Fleet Engine tokens with one RSA key through jwt-kit's RS256 signer. The token is
/// assembled here: its header segment is the same for every token (jwt-kit writes it once, at
/// start), its claims are written straight to JSON, and the signature comes from jwt-kit's signer
/// for the key, called directly rather than through the key collection's actor and encoders. The
/// tokens are byte for byte those `JWTKeyCollection.sign` makes (RS256 is deterministic), at a
/// little more than the cost of the signature itself; any claims this path cannot write exactly
/// go through `JWTKeyCollection.sign`.
public struct TokenMinter: Sendable {
    public let key: SigningKey
    public let issuer: String
    public let lifetime: TimeInterval
    private let keys: JWTKeyCollection
    /// jwt-kit's signer for the key and the encoded header, or nil if either could not be had at
    /// start (then every token goes through the collection).
    private let direct: (signer: any JWTAlgorithm, header: [UInt8])?

    public init(key: SigningKey, issuer: String, lifetime: TimeInterval) async {
        self.key = key
        self.issuer = issuer
        self.lifetime = lifetime
        self.keys = JWTKeyCollection()
        // Sorted keys and unescaped slashes: the same claims always encode the same, and `aud`
        // reads as the URL it is when someone decodes the token by hand.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let kid = JWKIdentifier(string: key.keyID)
        await keys.add(
            rsa: key.privateKey, digestAlgorithm: .sha256, kid: kid,
            serializer: DefaultJWTSerializer(jsonEncoder: encoder))
        do {
            let probe = try await keys.sign(
                FleetEngineClaims(issuer: issuer, kind: .consumer, id: "probe", issuedAt: 0, expiresAt: 1), kid: kid)
            direct = (try await keys.getKey(for: kid), Array(probe.utf8.prefix { $0 != UInt8(ascii: ".") }))
        } catch {
            direct = nil
        }
    }

    /// A token for `id` issued at `now` (rounded down to a whole second, since Fleet Engine
    /// wants integer times) and valid for `lifetime` seconds (the minter's own by default).
    public func mint(_ kind: ProviderKind, id: String, now: Date = Date(), lifetime: TimeInterval? = nil)
        async throws(TokenServerError) -> MintedToken
    {
        // Callers check the clock offset and lifetime where they are given; clamped here anyway,
        // so no `now` or lifetime can trap the server.
        let issuedAt = Int.clamping(now.timeIntervalSince1970)
        let expiresAt = issuedAt.saturatingAdd(Int.clamping(lifetime ?? self.lifetime))
        let claims = FleetEngineClaims(issuer: issuer, kind: kind, id: id, issuedAt: issuedAt, expiresAt: expiresAt)
        let jwt: String
        do {
            if let direct, let payload = claims.sortedJSON {
                jwt = try Self.assemble(header: direct.header, payload: payload, signer: direct.signer)
            } else {
                jwt = try await keys.sign(claims, kid: JWKIdentifier(string: key.keyID))
            }
        } catch {
            throw .signingFailed("\(error)")
        }
        return MintedToken(
            jwt: jwt, kind: kind, id: id,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
    }

    /// `header.payload.signature`, each segment base64url, the signature over the first two.
    static func assemble(header: [UInt8], payload: [UInt8], signer: any JWTAlgorithm) throws -> String {
        var token = header
        // Room for the payload's segment, the signature's (342 characters for RSA-2048) and the dots.
        token.reserveCapacity(header.count + payload.count * 4 / 3 + 350)
        token.append(UInt8(ascii: "."))
        Base64URL.append(payload, to: &token)
        let signature = try signer.sign(token)
        token.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &token)
        return String(decoding: token, as: UTF8.self)
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
