import Foundation
import JWTKit
import ProviderVocabulary

/// The claims of a Fleet Engine token. `iat` and `exp` are plain integers because Fleet Engine
/// rejects fractional times, which jwt-kit's `Date`-based claims can produce.
public struct FleetEngineClaims: JWTPayload, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var iat: Int
    public var exp: Int
    /// `{"tripid": ID}` for consumer tokens, `{"vehicleid": ID}` for driver tokens.
    public var authorization: [String: String]

    public init(issuer: String, kind: ProviderKind, id: String, issuedAt: Int, expiresAt: Int) {
        self.iss = issuer
        self.sub = issuer
        self.aud = FleetEngineLimits.audience
        self.iat = issuedAt
        self.exp = expiresAt
        self.authorization = [kind.claimName: id]
    }

    /// Called by jwt-kit after the signature checks out: the audience must be Fleet Engine's
    /// and the token must not have expired.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard aud == FleetEngineLimits.audience else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "aud is \(aud)")
        }
        guard exp > Int(Date().timeIntervalSince1970) else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "expired")
        }
    }
}

extension FleetEngineClaims {
    /// The claims as JSON with sorted keys and unescaped slashes: byte for byte what the minter's
    /// `JSONEncoder` writes, without its cost. Nil when a string would need escaping (a quote, a
    /// backslash, a control or non-ASCII character); the minter then encodes through jwt-kit.
    var sortedJSON: [UInt8]? {
        guard authorization.count == 1, let (claim, id) = authorization.first,
            [iss, sub, aud, claim, id].allSatisfy(Self.needsNoEscaping)
        else { return nil }
        var json: [UInt8] = []
        json.reserveCapacity(160 + iss.utf8.count * 2 + id.utf8.count)
        func append(_ text: String) { json.append(contentsOf: text.utf8) }
        // Keys in sorted order: aud, authorization, exp, iat, iss, sub.
        append("{\"aud\":\"")
        append(aud)
        append("\",\"authorization\":{\"")
        append(claim)
        append("\":\"")
        append(id)
        append("\"},\"exp\":")
        append(String(exp))
        append(",\"iat\":")
        append(String(iat))
        append(",\"iss\":\"")
        append(iss)
        append("\",\"sub\":\"")
        append(sub)
        append("\"}")
        return json
    }

    /// Printable ASCII other than `"` and `\`: the characters JSON strings carry as they are.
    private static func needsNoEscaping(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
