import Faults

/// What tokendash's loopback proxy does with one request under the fault switched on for its kind.
enum ProxyFaultAction: Equatable, Sendable {
    /// Sends it on, after `delayMilliseconds`.
    case forward(delayMilliseconds: Int)
    /// Closes the connection before any answer: an outage, or a backend refusing.
    case close
    /// Answers itself, the backend never reached.
    case answer(status: Int, reason: String, headerLines: [String], body: String)

    /// The action for `setting` on a plain-http request, or a tunnel (`tunnel`), whose bytes
    /// are TLS the proxy cannot answer inside: there only latency and drop act.
    static func decide(_ setting: FaultSetting?, tunnel: Bool) -> ProxyFaultAction {
        guard let setting else { return .forward(delayMilliseconds: 0) }
        switch setting.fault {
        case .latency: return .forward(delayMilliseconds: max(0, setting.latencyMilliseconds))
        case .drop: return .close
        case .http500, .http401, .rateLimited, .malformed:
            return tunnel ? .forward(delayMilliseconds: 0) : answer(setting.fault)
        case .wrongID, .expired, .fleetEngineUnavailable, .revokedKey, .clockSkew:
            return .forward(delayMilliseconds: 0)
        }
    }

    /// The embedded server's own answers for these faults, so a source provider sees the same.
    private static func answer(_ fault: Fault) -> ProxyFaultAction {
        let json = "Content-Type: application/json"
        switch fault {
        case .http401:
            return .answer(
                status: 401, reason: "Unauthorized", headerLines: [json],
                body: #"{"error":"injected fault: HTTP 401, the app's credentials are refused"}"#)
        case .rateLimited:
            return .answer(
                status: 429, reason: "Too Many Requests",
                headerLines: [json, "Retry-After: \(Fault.retryAfterSeconds)"],
                body: #"{"error":"injected fault: HTTP 429, too many requests"}"#)
        case .malformed:
            return .answer(
                status: 200, reason: "OK", headerLines: [json], body: #"{"jwt":"eyJhbGciOiJSUzI1NiIsInR5cCI6"#)
        default:
            return .answer(
                status: 500, reason: "Internal Server Error", headerLines: [json],
                body: #"{"error":"injected fault: HTTP 500"}"#)
        }
    }

    /// The answer's bytes, closing the connection after it.
    static func response(status: Int, reason: String, headerLines: [String], body: String) -> String {
        (["HTTP/1.1 \(status) \(reason)"] + headerLines + ["Content-Length: \(body.utf8.count)", "Connection: close"])
            .joined(separator: "\r\n") + "\r\n\r\n" + body
    }
}
