import Foundation
import ProviderVocabulary
import Testing

/// One hostile answer a backend can give, and the exact sentence the user must see for it.
public struct HostileCase: Sendable, CustomTestStringConvertible {
    public let name: String
    public let response: TransportResponse
    public let message: String
    public var testDescription: String { name }
}

/// The backend answers of the hardening matrix (TESTING.md), each with its own message.
public enum HostileMatrix {
    public static let now = Date(timeIntervalSince1970: 1_800_000_000)
    public static let t = 1_800_000_000
    public static let id = "trip-1"

    public static func jwt(
        id: String = id, iat: Int = t, exp: Int = t + 600, alg: String = "RS256", signature: String = TestJWT.signature
    ) -> String {
        TestJWT.make(id: id, iat: iat, exp: exp, header: ["alg": alg], signature: signature)
    }

    public static func body(
        _ json: String, status: Int = 200, headers: [String: String] = ["Content-Type": "application/json"]
    ) -> TransportResponse {
        TransportResponse(status: status, body: Data(json.utf8), headers: headers)
    }

    public static func token(_ token: String, expiry: String = "\((t + 600) * 1000)") -> TransportResponse {
        body("{\"jwt\":\"\(token)\",\"expirationTimestamp\":\(expiry)}")
    }

    public static var cases: [HostileCase] {
        let good = jwt()
        let parts = good.split(separator: ".").map(String.init)
        let header = parts[0]
        let claims = parts[1]
        let signature = parts[2]
        return [
            HostileCase(
                name: "HTTP 401", response: body("{\"error\":\"no session\"}", status: 401),
                message:
                    "backend answered HTTP 401 Unauthorized (the backend did not accept our credentials; check --header): {\"error\":\"no session\"}"
            ),
            HostileCase(
                name: "HTTP 403", response: body("", status: 403),
                message: "backend answered HTTP 403 Forbidden (the backend refuses a token for this ID or this user)"),
            HostileCase(
                name: "HTTP 404", response: body("not here", status: 404, headers: [:]),
                message: "backend answered HTTP 404 Not Found (check the URL template and the ID): not here"),
            HostileCase(
                name: "HTTP 429 with Retry-After seconds",
                response: body("slow down", status: 429, headers: ["Retry-After": "30"]),
                message: "backend answered HTTP 429 Too Many Requests (Retry-After 30 s): slow down"),
            HostileCase(
                name: "HTTP 500", response: body("{\"error\":\"boom\"}", status: 500),
                message: "backend answered HTTP 500 Internal Server Error: {\"error\":\"boom\"}"),
            HostileCase(
                name: "HTTP 503 with Retry-After date",
                response: body("", status: 503, headers: ["Retry-After": "Fri, 15 Jan 2027 08:02:00 GMT"]),
                message: "backend answered HTTP 503 Service Unavailable (Retry-After 120 s)"),
            HostileCase(
                name: "HTML instead of JSON",
                response: body(
                    "<!DOCTYPE html>\n<html><head><title>Sign in - Example SSO</title></head><body>…</body></html>",
                    headers: ["Content-Type": "text/html"]),
                message:
                    "response is not JSON: an HTML page titled \"Sign in - Example SSO\", often a proxy's or login page"
            ),
            HostileCase(
                name: "truncated JSON", response: body("{\"jwt\":\"eyJhbGciOi"),
                message: "response is not JSON: cannot parse \"{\"jwt\":\"eyJhbGciOi\""),
            HostileCase(
                name: "token as a number", response: body("{\"jwt\":12345,\"expirationTimestamp\":1}"),
                message: "response key \"jwt\" is a number 12345, expected a string"),
            HostileCase(
                name: "JWT with 2 parts", response: token("\(header).\(claims)"),
                message: "token is not a JWT: expected 3 dot-separated parts, found 2"),
            HostileCase(
                name: "JWT with 4 parts", response: token("\(good).\(signature)"),
                message: "token is not a JWT: expected 3 dot-separated parts, found 4"),
            HostileCase(
                name: "invalid base64url",
                response: token("\(header).\(claims.prefix(8))+/\(claims.dropFirst(10)).\(signature)"),
                message: "token is not a JWT: payload is not base64url"),
            HostileCase(
                name: "claims not JSON",
                response: token("\(header).\(TestJWT.encode(json: "not json at all")).\(signature)"),
                message: "token is not a JWT: payload is not JSON"),
            HostileCase(
                name: "exp before iat", response: token(jwt(iat: t + 600, exp: t + 300)),
                message: "token rejected: lifetime: exp 1800000300 is before iat 1800000600"),
            HostileCase(
                name: "lifetime over one hour", response: token(jwt(iat: t - 7000, exp: t + 600)),
                message: "token rejected: lifetime: exp - iat is 7600 s, over Fleet Engine's 3600 s"),
            HostileCase(
                name: "token for another ID", response: token(jwt(id: "trip-2")),
                message: "token is for tripid \"trip-2\", not the requested \"trip-1\""),
            HostileCase(
                name: "alg none", response: token(jwt(alg: "none", signature: "")),
                message: "token rejected: alg: alg is none (an unsigned token), expected RS256"),
            HostileCase(
                name: "10 MB body",
                response: TransportResponse(status: 200, body: Data(repeating: 0x20, count: 10 << 20)),
                message: "response body larger than 64 KiB; refused"),
        ]
    }
}
