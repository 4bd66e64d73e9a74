import FleetAuth
import Foundation
import JWTKit

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
        self.aud = JWTInspector.fleetEngineAudience
        self.iat = issuedAt
        self.exp = expiresAt
        self.authorization = [kind.claimName: id]
    }

    /// Called by jwt-kit after the signature checks out: the audience must be Fleet Engine's
    /// and the token must not have expired.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard aud == JWTInspector.fleetEngineAudience else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "aud is \(aud)") }
        guard exp > Int(Date().timeIntervalSince1970) else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "expired") }
    }
}
