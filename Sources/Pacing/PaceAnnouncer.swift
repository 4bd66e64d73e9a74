import Foundation

extension Pacer.Status {
    /// The rate in use and why, e.g. "420/s (backend p99 2.1 s)"; `who` names the backend.
    public func summary(_ who: String = "backend") -> String {
        let shown = rate < 10 ? String(format: "%.1f", rate) : String(format: "%.0f", rate)
        return "\(shown)/s (\(reason.describe(who)))"
    }
}

/// When a pace is worth saying again: its reason changed kind, or its rate moved by a quarter
/// since it was last said. A line for every step of a climb would bury the changes.
public struct PaceAnnouncer: Sendable {
    private var said: Pacer.Status?

    public init() {}

    /// Whether `status` is news; if so it is what was last said from now on.
    public mutating func isNews(_ status: Pacer.Status) -> Bool {
        if let said, status.reason.sameKind(as: said.reason), abs(status.rate - said.rate) < said.rate * 0.25 {
            return false
        }
        said = status
        return true
    }
}
