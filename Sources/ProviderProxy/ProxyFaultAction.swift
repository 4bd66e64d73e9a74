import Faults
import ProxyKit

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

    /// The embedded server's own answers for these faults (`FaultAnswer`), so a source provider sees the same.
    private static func answer(_ fault: Fault) -> ProxyFaultAction {
        guard let answer = FaultAnswer(fault) else { return .forward(delayMilliseconds: 0) }
        return .answer(
            status: answer.status, reason: answer.reason,
            headerLines: answer.headers.map { "\($0.name): \($0.value)" }, body: answer.body)
    }

    /// The answer's bytes, closing the connection after it.
    static func response(status: Int, reason: String, headerLines: [String], body: String) -> String {
        ProxyAnswer.closing(status: status, reason: reason, headerLines: headerLines, body: body)
    }
}
