import Foundation
import JSONValues
import ProviderVocabulary
import TokenReading

/// The one builder of Fleet Engine-shaped tokens for tests. By default a token passes every rule
/// Fleet Engine applies (alg RS256, typ JWT, a kid, iss = sub = a service account, the exact aud,
/// integer iat and exp, the authorization claim of its kind); each test overrides only what it
/// is about. The signature is a fake (base64url of "signature"): the provider core does not
/// verify it. Tests that need a real RSA signature mint with jwt-kit or the embedded server.
public enum TestJWT {
    /// A service account of a project `my-project`, so `--provider-id my-project` matches it.
    public static let account = "fleet-minter@my-project.iam.gserviceaccount.com"
    /// An issuer that is no Google service account: `decode` and verifiers then look for no key
    /// set on the internet, and say the signature was not checked.
    public static let nonServiceAccount = "minter@example.com"
    public static let kid = "k1"
    /// base64url of "signature".
    public static let signature = "c2lnbmF0dXJl"

    /// A token as a backend would send it. `header` and `claims` override single fields; nil
    /// removes one. Values are Swift literals (String, Int, Double, Bool, arrays, dictionaries)
    /// or `JSONValue`.
    public static func make(
        kind: ProviderKind = .consumer, id: String = "trip-1", iat: Int, exp: Int,
        account: String = account, header: [String: Any?] = [:], claims: [String: Any?] = [:],
        signature: String = signature
    ) -> String {
        var h: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": kid]
        for (k, v) in header { h[k] = v }
        var c: [String: Any] = [
            "iss": account, "sub": account, "aud": JWTInspector.fleetEngineAudience,
            "iat": iat, "exp": exp, "authorization": [kind.claimName: id],
        ]
        for (k, v) in claims { c[k] = v }
        return "\(encode(h)).\(encode(c)).\(signature)"
    }

    /// A token issued now (wall clock) that expires `lifetime` seconds later, for tests that run
    /// the real binary or a real server.
    public static func make(
        kind: ProviderKind = .consumer, id: String = "trip-1", lifetime: Int,
        account: String = account, header: [String: Any?] = [:], claims: [String: Any?] = [:],
        signature: String = signature
    ) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return make(
            kind: kind, id: id, iat: now, exp: now + lifetime, account: account, header: header, claims: claims,
            signature: signature)
    }

    /// One part of a token: `object` as compact JSON with sorted keys (so tokens are byte-identical
    /// between runs), base64url-encoded.
    public static func encode(_ object: Any) -> String { encode(json: json(object).description) }

    /// One part of a token from JSON text as it is, for parts no encoder writes (`1e300`, not JSON at all).
    public static func encode(json text: String) -> String { JWTInspector.base64URLEncode(Data(text.utf8)) }

    /// The backend's JSON answer in Google's on-demand sample-backend shape (epoch milliseconds).
    public static func response(_ jwt: String, expiresAtSeconds exp: Int, status: Int = 200) -> TransportResponse {
        TransportResponse(status: status, body: Data(responseBody(jwt, expiresAtSeconds: exp).utf8))
    }

    public static func responseBody(_ jwt: String, expiresAtSeconds exp: Int) -> String {
        "{\"jwt\":\"\(jwt)\",\"creationTimestamp\":\(exp * 1000 - 3_600_000),\"expirationTimestamp\":\(exp * 1000)}"
    }

    /// Swift values as JSON, integers kept apart from fractions (Fleet Engine's rule on iat and exp).
    static func json(_ value: Any) -> JSONValue {
        switch value {
        case let v as JSONValue: return v
        case let v as String: return .string(v)
        case let v as Bool: return .bool(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as Double: return .double(v)
        case let v as [Any]: return .array(v.map(json))
        case let v as [String: Any]: return .object(JSONObject(v.mapValues(json)))
        default: preconditionFailure("TestJWT: \(type(of: value)) is no JSON value")
        }
    }
}
