import Foundation
import Redaction
import TokenReading

/// Everything that can go wrong between asking for a token and holding a valid one.
/// Each case has a one-line sentence: that sentence is what a pane or a log line shows.
public enum FleetAuthError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The SDK asked without a trip or vehicle ID (the samples' `missingAuthorizationContext`).
    case missingAuthorizationContext(ProviderKind)
    /// The URL template plus ID did not make a URL.
    case invalidURL(String)
    /// The backend could not be reached (refused, DNS, reset).
    case unreachable(url: String, reason: String)
    case timeout(seconds: Double)
    /// A non-2xx answer; `retryAfter` is the server's `Retry-After` in seconds (429 and 503 send it).
    case httpStatus(code: Int, body: String, retryAfter: Int? = nil)
    case bodyTooLarge(limit: Int)
    case notJSON(String)
    /// The key is not in the response; `present` lists the keys that are, `flag` names the option to set.
    case missingKey(String, present: [String] = [], flag: String? = nil)
    case wrongType(key: String, expected: String, found: String)
    /// The expiry is a number, but no time: negative, not finite, or centuries away in the chosen mode.
    case invalidExpiry(key: String, value: String, reason: String)
    case alreadyExpired(expiredSecondsAgo: Int)
    case notAJWT(String)
    /// The JWT was minted for another trip or vehicle.
    case wrongID(claim: String, expected: String, found: String)
    /// Fleet Engine would refuse the token: the rules that failed (`TokenRules`, the signature).
    case rejected([RuleResult])
    /// The ID changed while this fetch was in flight; its result was discarded, not cached.
    case superseded(requested: String, current: String)
    /// Recent fetches failed; the next attempt waits until `retryAt`.
    case backingOff(retryInSeconds: Int, lastError: String)
    case cancelled
    case other(String)
    /// A token refusal read back from a recording: its sentence is kept, its details are not.
    case replayedRejection(String)

    /// The reader's refusal, in the same words.
    public init(_ error: JWTReadingError) {
        switch error {
        case .notAJWT(let why): self = .notAJWT(why)
        }
    }

    /// The token came and was refused: by the rules, for another ID, or already expired (what a
    /// scenario's `until: rejected` waits for, live and in a replay).
    public var isTokenRejection: Bool {
        switch self {
        case .rejected, .wrongID, .alreadyExpired, .replayedRejection: true
        case .missingAuthorizationContext, .invalidURL, .unreachable, .timeout, .httpStatus, .bodyTooLarge, .notJSON,
            .missingKey, .wrongType, .invalidExpiry, .notAJWT, .superseded, .backingOff, .cancelled, .other:
            false
        }
    }

    /// The backend is overloaded or out of reach, not refusing this request: a timeout, a refused
    /// or reset connection, 429, or 502-504. What a pacer slows down for (gRPC's client-side
    /// throttling counts the same answers as its "rejects"); a 401 or a bad token says nothing of load.
    public var isOverload: Bool {
        switch self {
        case .timeout, .unreachable: true
        case .httpStatus(let code, _, _): Self.overloadStatuses.contains(code)
        case .missingAuthorizationContext, .invalidURL, .bodyTooLarge, .notJSON, .missingKey, .wrongType,
            .invalidExpiry,
            .alreadyExpired, .notAJWT, .wrongID, .rejected, .superseded, .backingOff, .cancelled, .other,
            .replayedRejection:
            false
        }
    }

    /// HTTP statuses that mean "too much, come back later": Too Many Requests, and the gateway
    /// and availability errors a loaded backend or its load balancer answers.
    public static let overloadStatuses: Set<Int> = [429, 502, 503, 504]

    /// The sentence, with anything that looks like a JWT redacted: messages quote response bodies,
    /// and a body can carry a token, so no error is ever a way for a credential to reach a screen or a log.
    public var description: String { SecretRedactor.redact(sentence) }

    private var sentence: String {
        switch self {
        case .missingAuthorizationContext(let kind):
            "no authorization context: the SDK asked for a token without a \(kind.idNoun)"
        case .invalidURL(let u): "cannot build a request URL from \(u)"
        case .unreachable(let url, let reason): "backend unreachable at \(url): \(reason)"
        case .timeout(let s): "backend did not answer within \(Self.format(s)) s"
        case .httpStatus(let code, let body, let retryAfter):
            "backend answered HTTP \(code)" + Self.meaning(ofStatus: code)
                + (retryAfter.map { " (Retry-After \($0) s)" } ?? "") + (body.isEmpty ? "" : ": \(body)")
        case .bodyTooLarge(let limit): "response body larger than \(limit / 1024) KiB; refused"
        case .notJSON(let why): "response is not JSON: \(why)"
        case .missingKey(let key, let present, let flag):
            "response has no \"\(key)\" key"
                + (present.isEmpty ? "" : " (it has \(present.prefix(12).map { "\"\($0)\"" }.joined(separator: ", ")))")
                + (flag.map { "; set \($0)" } ?? "")
        case .wrongType(let key, let expected, let found):
            "response key \"\(key)\" is a \(found), expected a \(expected)"
        case .invalidExpiry(let key, let value, let reason):
            "response key \"\(key)\" is \(value), not an expiry: \(reason)"
        case .alreadyExpired(let ago): "token already expired \(ago) s ago"
        case .notAJWT(let why): JWTReadingError.notAJWT(why).sentence
        case .wrongID(let claim, let expected, let found):
            "token is for \(claim) \"\(found)\", not the requested \"\(expected)\""
        case .rejected(let results):
            "token rejected: " + results.map { "\($0.rule): \($0.reason)" }.joined(separator: "; ")
        case .superseded(let requested, let current):
            "discarded the response for \(requested): the ID changed to \(current) while it was in flight"
        case .backingOff(let s, let last): "retrying in \(s) s after: \(last)"
        case .cancelled: "request cancelled"
        case .other(let s), .replayedRejection(let s): s
        }
    }

    public var errorDescription: String? { description }

    /// What a status means for someone debugging a token backend; the codes a token endpoint
    /// really returns get a hint at the usual cause.
    static func meaning(ofStatus code: Int) -> String {
        switch code {
        case 400: " Bad Request"
        case 401: " Unauthorized (the backend did not accept our credentials; check --header)"
        case 403: " Forbidden (the backend refuses a token for this ID or this user)"
        case 404: " Not Found (check the URL template and the ID)"
        case 405: " Method Not Allowed (the endpoint does not take GET)"
        case 408: " Request Timeout"
        case 429: " Too Many Requests"
        case 500: " Internal Server Error"
        case 502: " Bad Gateway"
        case 503: " Service Unavailable"
        case 504: " Gateway Timeout"
        case 300..<400: " (a redirect that was not followed)"
        default: ""
        }
    }

    private static func format(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : String(format: "%.1f", s)
    }
}
