import FleetAuth
import Foundation
import TestSupport
import Testing

/// One hostile answer a backend can give, and the exact sentence the user must see for it.
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let response: TransportResponse
    let message: String
    var testDescription: String { name }
}

/// The backend answers of the hardening matrix (TESTING.md), each with its own message.
enum HostileMatrix {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let t = 1_800_000_000
    static let id = "trip-1"

    static func jwt(id: String = id, iat: Int = t, exp: Int = t + 600, alg: String = "RS256", signature: String = TestJWT.signature) -> String {
        TestJWT.make(id: id, iat: iat, exp: exp, header: ["alg": alg], signature: signature)
    }

    static func body(_ json: String, status: Int = 200, headers: [String: String] = ["Content-Type": "application/json"]) -> TransportResponse {
        TransportResponse(status: status, body: Data(json.utf8), headers: headers)
    }

    static func token(_ token: String, expiry: String = "\((t + 600) * 1000)") -> TransportResponse {
        body("{\"jwt\":\"\(token)\",\"expirationTimestamp\":\(expiry)}")
    }

    static var cases: [HostileCase] {
        let good = jwt()
        let parts = good.split(separator: ".").map(String.init)
        let header = parts[0], claims = parts[1], signature = parts[2]
        return [
            HostileCase(name: "HTTP 401", response: body("{\"error\":\"no session\"}", status: 401),
                        message: "backend answered HTTP 401 Unauthorized (the backend did not accept our credentials; check --header): {\"error\":\"no session\"}"),
            HostileCase(name: "HTTP 403", response: body("", status: 403),
                        message: "backend answered HTTP 403 Forbidden (the backend refuses a token for this ID or this user)"),
            HostileCase(name: "HTTP 404", response: body("not here", status: 404, headers: [:]),
                        message: "backend answered HTTP 404 Not Found (check the URL template and the ID): not here"),
            HostileCase(name: "HTTP 429 with Retry-After seconds", response: body("slow down", status: 429, headers: ["Retry-After": "30"]),
                        message: "backend answered HTTP 429 Too Many Requests (Retry-After 30 s): slow down"),
            HostileCase(name: "HTTP 500", response: body("{\"error\":\"boom\"}", status: 500),
                        message: "backend answered HTTP 500 Internal Server Error: {\"error\":\"boom\"}"),
            HostileCase(name: "HTTP 503 with Retry-After date", response: body("", status: 503, headers: ["Retry-After": "Fri, 15 Jan 2027 08:02:00 GMT"]),
                        message: "backend answered HTTP 503 Service Unavailable (Retry-After 120 s)"),
            HostileCase(name: "HTML instead of JSON",
                        response: body("<!DOCTYPE html>\n<html><head><title>Sign in - Example SSO</title></head><body>…</body></html>", headers: ["Content-Type": "text/html"]),
                        message: "response is not JSON: an HTML page titled \"Sign in - Example SSO\", often a proxy's or login page"),
            HostileCase(name: "truncated JSON", response: body("{\"jwt\":\"eyJhbGciOi"),
                        message: "response is not JSON: cannot parse \"{\"jwt\":\"eyJhbGciOi\""),
            HostileCase(name: "token as a number", response: body("{\"jwt\":12345,\"expirationTimestamp\":1}"),
                        message: "response key \"jwt\" is a number 12345, expected a string"),
            HostileCase(name: "JWT with 2 parts", response: token("\(header).\(claims)"),
                        message: "token is not a JWT: expected 3 dot-separated parts, found 2"),
            HostileCase(name: "JWT with 4 parts", response: token("\(good).\(signature)"),
                        message: "token is not a JWT: expected 3 dot-separated parts, found 4"),
            HostileCase(name: "invalid base64url", response: token("\(header).\(claims.prefix(8))+/\(claims.dropFirst(10)).\(signature)"),
                        message: "token is not a JWT: payload is not base64url"),
            HostileCase(name: "claims not JSON", response: token("\(header).\(TestJWT.encode(json: "not json at all")).\(signature)"),
                        message: "token is not a JWT: payload is not JSON"),
            HostileCase(name: "exp before iat", response: token(jwt(iat: t + 600, exp: t + 300)),
                        message: "token rejected: lifetime: exp 1800000300 is before iat 1800000600"),
            HostileCase(name: "lifetime over one hour", response: token(jwt(iat: t - 7000, exp: t + 600)),
                        message: "token rejected: lifetime: exp - iat is 7600 s, over Fleet Engine's 3600 s"),
            HostileCase(name: "token for another ID", response: token(jwt(id: "trip-2")),
                        message: "token is for tripid \"trip-2\", not the requested \"trip-1\""),
            HostileCase(name: "alg none", response: token(jwt(alg: "none", signature: "")),
                        message: "token rejected: alg: alg is none (an unsigned token), expected RS256"),
            HostileCase(name: "10 MB body", response: TransportResponse(status: 200, body: Data(repeating: 0x20, count: 10 << 20)),
                        message: "response body larger than 64 KiB; refused"),
        ]
    }
}

@Suite(.timeLimit(.minutes(3))) struct HostileResponseTests {
    func decode(_ response: TransportResponse) -> Result<FetchedToken, FleetAuthError> {
        let decoder = TokenResponseDecoder(endpoint: .sampleBackend(.consumer, base: "http://b"))
        return Result { () throws(FleetAuthError) in try decoder.decode(response, id: HostileMatrix.id, now: HostileMatrix.now) }
    }

    @Test(arguments: HostileMatrix.cases)
    func eachHostileAnswerHasItsOwnMessage(_ hostile: HostileCase) {
        switch decode(hostile.response) {
        case .success: Issue.record("\(hostile.name) was accepted")
        case .failure(let error):
            #expect(error.description == hostile.message)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func theMessagesAreAllDifferent() {
        let messages = HostileMatrix.cases.map(\.message)
        #expect(Set(messages).count == messages.count)
    }

    @Test func theMatrixBaselineIsAccepted() throws {
        // Guards the matrix itself: the unmodified token is good, so each case fails for its own reason.
        let token = try decode(HostileMatrix.token(HostileMatrix.jwt())).get()
        #expect(token.id == HostileMatrix.id)
    }

    @Test func retryAfterIsReadAsSecondsOrDateAndCapped() {
        let now = HostileMatrix.now
        #expect(TokenResponseDecoder.retryAfterSeconds("30", now: now) == 30)
        #expect(TokenResponseDecoder.retryAfterSeconds("Fri, 15 Jan 2027 08:00:45 GMT", now: now) == 45)
        #expect(TokenResponseDecoder.retryAfterSeconds("Fri, 15 Jan 2027 07:00:00 GMT", now: now) == 0)
        #expect(TokenResponseDecoder.retryAfterSeconds("86400", now: now) == 3600)
        #expect(TokenResponseDecoder.retryAfterSeconds("soon", now: now) == nil)
        #expect(TokenResponseDecoder.retryAfterSeconds(nil, now: now) == nil)
    }

    @Test func retryAfterCountsOnlyOn429And503() {
        let response = HostileMatrix.body("", status: 500, headers: ["Retry-After": "30"])
        #expect(throws: FleetAuthError.httpStatus(code: 500, body: "", retryAfter: nil)) {
            try TokenResponseDecoder(endpoint: .sampleBackend(.consumer, base: "http://b")).decode(response, id: "t", now: HostileMatrix.now)
        }
    }

    /// The inputs libFuzzer crashed (Tests/Fuzz/crashes/), and the other hostile expiry fields: the
    /// body's number is reported with its own reason, and the valid token is served until its
    /// signed exp, never refused for it and never past it.
    @Test(arguments: [
        (ExpiryMode.auto, "1e30", "is 1e+30, not an expiry: read as auto it is centuries away"),
        (.relative, "1e30", "is 1e+30, not an expiry: read as relative it is centuries away"),
        (.absolute, "-1e30", "is -1e+30, not an expiry: negative"),
        (.absolute, "-9223372036854775808", "is -9.223372036854776e+18, not an expiry: negative"),
        (.auto, "1e300", "is 1e+300, not an expiry: read as auto it is centuries away"),
        (.auto, "-5", "is -5, not an expiry: negative"),
        (.auto, "\"NaN\"", "is a string \"NaN\", not a number or an ISO-8601 time"),
    ])
    func hostileExpiryFieldsFallBackToTheSignedExp(mode: ExpiryMode, expiry: String, reason: String) throws {
        var endpoint = TokenEndpoint.sampleBackend(.consumer, base: "http://b")
        endpoint.expiryMode = mode
        let response = HostileMatrix.token(HostileMatrix.jwt(), expiry: expiry)
        let token = try TokenResponseDecoder(endpoint: endpoint).decode(response, id: HostileMatrix.id, now: HostileMatrix.now)
        #expect(token.expiresAt == HostileMatrix.now.addingTimeInterval(600))
        #expect(token.warnings.count == 1)
        #expect(token.warnings.first?.contains(reason) == true, "\(token.warnings)")
        #expect(token.warnings.first?.hasSuffix("using the JWT exp (600 s left)") == true, "\(token.warnings)")
    }

    @Test func hugeAndNegativeClaimTimesDoNotTrap() throws {
        // Fuzzing regression: exp - iat overflowed Int64 and trapped.
        let header = TestJWT.encode(["alg": "RS256"])
        for (iat, exp) in [(Int64.min, Int64.max), (Int64.max, Int64.min), (0, Int64.max)] {
            let claims = "{\"aud\":\"\(JWTInspector.fleetEngineAudience)\",\"iat\":\(iat),\"exp\":\(exp),\"authorization\":{\"tripid\":\"t\"}}"
            let jwt = try JWTInspector.decode("\(header).\(TestJWT.encode(json: claims)).sig")
            #expect(!TokenRules.evaluate(jwt, kind: .consumer, id: "t", now: Date()).failures.isEmpty)
        }
    }
}

@Suite(.timeLimit(.minutes(3))) struct ErrorRedactionTests {
    @Test func anErrorQuotingABodyRedactsTheJWTInIt() {
        let jwt = HostileMatrix.jwt(signature: "SIGNATURE-SECRET-PART-1234567890")
        let decoder = TokenResponseDecoder(endpoint: .sampleBackend(.consumer, base: "http://b"))
        let response = HostileMatrix.body("{\"error\":\"expired\",\"stale\":\"\(jwt)\"}", status: 401)
        do {
            _ = try decoder.decode(response, id: HostileMatrix.id, now: HostileMatrix.now)
            Issue.record("a 401 was accepted")
        } catch {
            #expect(!error.description.contains(jwt.prefix(40)))
            #expect(!error.description.contains("SIGNATURE-SECRET"))
            #expect(error.description.contains("\(jwt.prefix(12))…"))
        }
    }

    @Test func everyKindOfMessageIsRedacted() {
        let jwt = HostileMatrix.jwt(signature: "SIGNATURE-SECRET-PART-1234567890")
        let errors: [FleetAuthError] = [
            .other("upstream said Bearer \(jwt)"), .unreachable(url: "http://x/?t=\(jwt)", reason: "refused"),
            .notJSON("cannot parse \"\(jwt)\""), .httpStatus(code: 400, body: jwt),
        ]
        for error in errors {
            #expect(!error.description.contains("SIGNATURE-SECRET"), "\(error)")
            #expect(!error.description.contains(String(jwt.split(separator: ".")[1])))
        }
    }

    @Test func paddedAndMangledTokensAreRedactedWhole() {
        // Found by fuzzing: the run stopped at `=` or `+` and the rest, signature included, showed.
        let parts = HostileMatrix.jwt(signature: "SIGNATURE-SECRET-PART-1234567890").split(separator: ".")
        for token in ["\(parts[0])=.\(parts[1])==.\(parts[2])", "\(parts[0]).\(parts[1].prefix(10))+/\(parts[1].dropFirst(10)).\(parts[2])"] {
            let shown = TokenRedactor.redactJWTs(in: "body: \(token) end")
            #expect(!shown.contains("SIGNATURE-SECRET"), "\(shown)")
            #expect(shown.hasSuffix(" end"))
        }
    }

    @Test func ordinaryTextIsLeftAlone() {
        for text in ["backend unreachable at http://api.example.com/token/consumer/trip-1: connection refused",
                     "they.said.something honey.example.com", "key \"expirationTimestamp\" is -5"] {
            #expect(TokenRedactor.redactJWTs(in: text) == text)
        }
    }
}
