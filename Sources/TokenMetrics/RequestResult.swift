import ProviderVocabulary

/// How a request to the token backend ended, as the `result` label of `tokendash_requests_total`:
/// a handful of classes an operator alerts on, never the error's text (which names IDs and URLs).
public enum RequestResult: String, CaseIterable, Sendable {
    case ok
    case http4xx = "http_4xx"
    case http5xx = "http_5xx"
    case timeout
    /// Refused, reset, DNS, or any other failure to get an answer.
    case unreachable
    /// The TLS handshake failed (untrusted, expired or misnamed certificate).
    case tls
    /// An answer came, but it held no usable token (not JSON, no token key, not a JWT, wrong ID, expired).
    case invalidToken = "invalid_token"
    /// The token came but Fleet Engine's rules (or its signature) refuse it.
    case ruleFailed = "rule_failed"

    /// The class of a failed fetch; nil when the provider abandoned the fetch itself (superseded by
    /// an ID change, cancelled) or never sent a request (no ID, no URL, backing off).
    public init?(_ error: FleetAuthError) {
        switch error {
        case .httpStatus(let code, _, _): self = code >= 500 ? .http5xx : .http4xx
        case .timeout: self = .timeout
        case .unreachable(_, let reason): self = reason.hasPrefix("TLS") ? .tls : .unreachable
        case .other: self = .unreachable
        case .bodyTooLarge, .notJSON, .missingKey, .wrongType, .invalidExpiry, .alreadyExpired, .notAJWT, .wrongID:
            self = .invalidToken
        case .rejected, .replayedRejection: self = .ruleFailed
        case .superseded, .cancelled, .backingOff, .missingAuthorizationContext, .invalidURL: return nil
        }
    }
}
