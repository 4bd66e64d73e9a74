import Foundation
import JSONValues
import ProviderVocabulary
import Redaction

/// Fleet Engine's answer to one SDK call, as the pane, the fetch log, `watch`, metrics and
/// recordings show it.
public struct FleetEngineAnswer: Sendable, Equatable {
    public var method: FleetEngineMethod
    /// `providers/PROJECT/vehicles/ID`.
    public var resource: String
    /// The HTTP status, nil when no answer came (unreachable, timeout).
    public var httpStatus: Int?
    /// The gRPC status name Google's error body carries (`PERMISSION_DENIED`), `OK` on success;
    /// derived from the HTTP status when the body is not Google's error format.
    public var status: String
    /// Fleet Engine's message (redacted), or why no answer came; empty on success.
    public var message: String
    public var latency: TimeInterval
    /// The first 8 hex digits of the token's SHA-256 (`TokenFingerprint`).
    public var fingerprint: String
    /// What tokendash's rules said of the token when it was used.
    public var rules: RuleLevel
    /// The token was one the provider refused, sent anyway to ask Fleet Engine (tokendash's core
    /// hands its SDK no token it refused; the call shows whether Fleet Engine agrees).
    public var refusedByProvider: Bool

    public init(
        method: FleetEngineMethod, resource: String, httpStatus: Int?, status: String, message: String,
        latency: TimeInterval, fingerprint: String, rules: RuleLevel, refusedByProvider: Bool = false
    ) {
        self.method = method
        self.resource = resource
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        self.latency = latency
        self.fingerprint = fingerprint
        self.rules = rules
        self.refusedByProvider = refusedByProvider
    }

    /// What the answer says of the token. A 404 came after authentication (the token was fine,
    /// the resource is missing); a 401 or 403 is a refusal; anything else (503, no answer) says
    /// nothing about the token.
    public enum TokenVerdict: String, Sendable, Equatable {
        case accepted, refused, unknown
    }

    public var tokenVerdict: TokenVerdict {
        switch httpStatus {
        case let code? where (200..<300).contains(code) || code == 404: .accepted
        case 401?, 403?: .refused
        default: .unknown
        }
    }

    public var succeeded: Bool { httpStatus.map { (200..<300).contains($0) } ?? false }

    /// Fleet Engine (or the emulator) is overloaded: 429 RESOURCE_EXHAUSTED, 502-504, or no answer
    /// in time. Google's APIs ask clients to retry UNAVAILABLE with backoff (AIP-194), and Google's
    /// client libraries back off harder still on RESOURCE_EXHAUSTED (googleapis/python-pubsub#979).
    public var saysOverloaded: Bool {
        guard let httpStatus else { return status == "DEADLINE_EXCEEDED" || status == "UNAVAILABLE" }
        return FleetAuthError.overloadStatuses.contains(httpStatus)
    }

    /// tokendash's rules passed the token and Fleet Engine refused it, or the rules failed it and
    /// Fleet Engine accepted it: a bug in the rules or in the backend, which the user must see.
    public var verdictDisagrees: Bool {
        switch tokenVerdict {
        case .accepted: rules == .fail
        case .refused: rules != .fail
        case .unknown: false
        }
    }

    /// The answer read from an HTTP response. Google's APIs answer errors as
    /// `{"error":{"code":403,"message":"…","status":"PERMISSION_DENIED"}}` (AIP-193).
    public static func reading(
        _ response: TransportResponse, method: FleetEngineMethod, resource: String,
        latency: TimeInterval, fingerprint: String, rules: RuleLevel,
        refusedByProvider: Bool = false
    ) -> FleetEngineAnswer {
        var status = (200..<300).contains(response.status) ? "OK" : grpcName(httpStatus: response.status)
        var message = ""
        if !(200..<300).contains(response.status) {
            if case .object(let top)? = try? JSONValue.decode(response.body), case .object(let error)? = top["error"] {
                if let name = error["status"]?.stringValue, !name.isEmpty { status = name }
                message = error["message"]?.stringValue ?? ""
            } else {
                message = String(decoding: response.body.prefix(200), as: UTF8.self)
                    .split(whereSeparator: \.isNewline).joined(separator: " ")
            }
        }
        return FleetEngineAnswer(
            method: method, resource: resource, httpStatus: response.status, status: status,
            message: clipped(SecretRedactor.redact(message)), latency: latency,
            fingerprint: fingerprint, rules: rules, refusedByProvider: refusedByProvider)
    }

    /// No answer: the call failed before Fleet Engine said anything.
    public static func failed(
        _ error: FleetAuthError, method: FleetEngineMethod, resource: String, latency: TimeInterval,
        fingerprint: String, rules: RuleLevel, refusedByProvider: Bool = false
    ) -> FleetEngineAnswer {
        let status = if case .timeout = error { "DEADLINE_EXCEEDED" } else { "UNAVAILABLE" }
        return FleetEngineAnswer(
            method: method, resource: resource, httpStatus: nil, status: status,
            message: clipped(error.description), latency: latency, fingerprint: fingerprint,
            rules: rules, refusedByProvider: refusedByProvider)
    }

    /// gRPC's status codes by the names Google's error bodies give them (google.rpc.Code), in code order.
    public static let statusNames = [
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
        "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
        "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    ]

    /// The gRPC code Google's HTTP mapping gives a status (google.rpc.Code's HTTP mapping).
    public static func grpcName(httpStatus: Int) -> String {
        switch httpStatus {
        case 200..<300: "OK"
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 409: "ABORTED"
        case 412: "FAILED_PRECONDITION"
        case 429: "RESOURCE_EXHAUSTED"
        case 499: "CANCELLED"
        case 501: "UNIMPLEMENTED"
        case 503: "UNAVAILABLE"
        case 504: "DEADLINE_EXCEEDED"
        case 500..<600: "INTERNAL"
        default: "UNKNOWN"
        }
    }

    /// A message fits a log line: at most 300 characters.
    private static func clipped(_ text: String) -> String {
        text.count <= 300 ? text : String(text.prefix(299)) + "…"
    }
}

extension FleetEngineAnswer {
    /// `UpdateVehicle 403 PERMISSION_DENIED: message`: the one-line form the fetch log and the
    /// pane show.
    public var summary: String {
        var text = method.rawValue + " " + (httpStatus.map(String.init).map { $0 + " " } ?? "") + status
        if refusedByProvider { text += " (a token the provider refused, sent to ask)" }
        if !message.isEmpty { text += ": " + message }
        return text
    }

    /// What a disagreement between the rules and Fleet Engine means, or nil when they agree.
    public var disagreement: String? {
        guard verdictDisagrees else { return nil }
        return tokenVerdict == .refused
            ? "tokendash's rules passed this token and Fleet Engine refused it: a rules bug or a backend bug"
            : "tokendash's rules failed this token and Fleet Engine accepted it: a rules bug or a backend bug"
    }
}
