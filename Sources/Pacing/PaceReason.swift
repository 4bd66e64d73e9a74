import Foundation

/// Why a pace is what it is: what the backend's answers said in the last period.
public enum PaceReason: Sendable, Equatable {
    /// No answer has come yet: the pace is where it started.
    case starting
    /// Answers are fast; the pace is at its ceiling (or climbing back to it).
    case calm(p99: TimeInterval)
    /// Answers slowed past the backend's own floor by more than the pacer allows: queueing.
    case slow(p99: TimeInterval)
    /// A call has waited this long with no answer yet.
    case stalled(waiting: TimeInterval)
    /// Answers that say the backend is overloaded: timeouts, 429, 502-504, refused connections.
    case overloaded(count: Int, p99: TimeInterval?)
    /// Other work comes first (the Fleet Engine calls give way to a ramp that is backing off).
    case givingWay

    /// A few words for a status line, e.g. "backend p99 2.1 s". `who` names the backend.
    public func describe(_ who: String = "backend") -> String {
        switch self {
        case .starting: "no answers yet"
        case .calm(let p99): "\(who) p99 \(Self.seconds(p99))"
        case .slow(let p99): "\(who) p99 \(Self.seconds(p99)), slowing"
        case .stalled(let waiting): "a call to the \(who) unanswered for \(Self.seconds(waiting))"
        case .overloaded(let count, let p99):
            "\(count) overloaded answer\(count == 1 ? "" : "s") (timeouts, 429, 5xx)"
                + (p99.map { ", \(who) p99 \(Self.seconds($0))" } ?? "")
        case .givingWay: "giving way to the ramp"
        }
    }

    static func seconds(_ t: TimeInterval) -> String {
        t < 0.1 ? String(format: "%.0f ms", t * 1000) : String(format: "%.1f s", t)
    }

    /// Whether two reasons are the same kind, whatever their figures: a status line is said again
    /// when the kind changes, not at every new p99.
    public func sameKind(as other: PaceReason) -> Bool {
        switch (self, other) {
        case (.starting, .starting), (.calm, .calm), (.slow, .slow), (.stalled, .stalled), (.overloaded, .overloaded),
            (.givingWay, .givingWay):
            true
        default: false
        }
    }
}
