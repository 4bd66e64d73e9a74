/// The rules tokendash judges a token by, named as `decode`, `watch`, the pane and recordings
/// print them. A rule is a case, not a string, so a new one cannot be misspelled where it is
/// compared, and `source` fails to compile until the new rule says where it comes from.
public enum Rule: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case alg, typ, kid
    case issuer = "iss/sub"
    case audience = "aud"
    case issuedAt = "iat"
    case expiry = "exp"
    case lifetime, authorization, signature, clock
    /// The response's own expiry field against the JWT's `exp`.
    case expiryField = "expiry field"
    /// How the token was found in the response (a stripped `Bearer ` prefix).
    case tokenField = "token field"
    /// A token whose time to refresh has come but which is still served (a provider's fact).
    case refresh

    /// The short, stable name printed before a result's reason.
    public var name: String { rawValue }
    /// The name, so that interpolating a rule prints what users read (`iss/sub`, not `issuer`).
    public var description: String { rawValue }

    /// Where the rule comes from, as docs/fleet-engine.md's "Verdicts" table names the sources: [JWT] Fleet
    /// Engine's "JSON Web Tokens" page, [JFA] github.com/googlemaps/java-fleetengine-auth, [RFC
    /// 7515] JSON Web Signature, the SDK references, and Google's sample providers.
    public var source: String {
        switch self {
        case .alg: "[JWT] \"alg: RS256\""
        case .typ: "[JWT] \"typ: JWT\"; RFC 7519 makes it optional, so missing only warns"
        case .kid:
            "[JWT] lists it; [JFA] ImpersonatedSigner and DefaultServiceAccountSigner mint without it; [RFC 7515] 4.1.4"
        case .issuer: "[JWT] iss and sub are the key file's client_email; [JFA] every signer sets both"
        case .audience: "[JWT]; [JFA] CommonConstants.DEFAULT_JWT_AUDIENCE"
        case .issuedAt, .expiry: "[JWT] seconds since the epoch, \"allow 10 minutes for skew\""
        case .lifetime: "[JWT] at most one hour; [JFA] TOKEN_EXPIRATION and EXPIRATION_WINDOW_DURATION (5 minutes)"
        case .authorization: "[JWT] \"Fleet Engine JWT claims\"; [JFA] the *Claims classes"
        case .signature: "[RFC 7515]; Google's key sets at googleapis.com/service_accounts/v1/metadata/jwk/{email}"
        case .clock: "RFC 9110 Date; [JWT] skew"
        case .expiryField, .tokenField: "Google's sample providers (shared/seeds) read the body's token and expiry"
        case .refresh: "GMTDAuthorization reference: tokens \"should have a minimum lifetime of 5 minutes\""
        }
    }
}
