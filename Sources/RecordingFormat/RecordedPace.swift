import Pacing

/// The ramp's pace as a recording holds it (a line whenever it changes), so a replayed ramp line
/// says how fast the SDKs were started and why, as the live one did, not only how many.
public struct RecordedPace: Codable, Equatable, Sendable {
    public var rate: Double
    public var ceiling: Double
    public var floor: Double
    /// starting, calm, slow, stalled, overloaded or giving_way.
    public var reason: String
    /// The reason's p99 (calm, slow, overloaded) or wait (stalled), in seconds.
    public var seconds: Double?
    /// How many overloaded answers (overloaded).
    public var count: Int?
    public var inFlight: Int
    public var window: Int
    public var active: Bool

    enum CodingKeys: String, CodingKey {
        case rate, ceiling, floor, reason, seconds, count, active, window
        case inFlight = "in_flight"
    }

    public init(_ status: Pacer.Status) {
        (rate, ceiling, floor, inFlight, window, active) = (
            status.rate, status.ceiling, status.floor, status.inFlight, status.window, status.active
        )
        switch status.reason {
        case .starting: reason = "starting"
        case .calm(let p99): (reason, seconds) = ("calm", p99)
        case .slow(let p99): (reason, seconds) = ("slow", p99)
        case .stalled(let waiting): (reason, seconds) = ("stalled", waiting)
        case .overloaded(let count, let p99): (reason, self.count, seconds) = ("overloaded", count, p99)
        case .givingWay: reason = "giving_way"
        }
    }

    /// nil for a reason this build does not know.
    public var status: Pacer.Status? {
        let why: PaceReason
        switch reason {
        case "starting": why = .starting
        case "calm": why = .calm(p99: seconds ?? 0)
        case "slow": why = .slow(p99: seconds ?? 0)
        case "stalled": why = .stalled(waiting: seconds ?? 0)
        case "overloaded": why = .overloaded(count: count ?? 0, p99: seconds)
        case "giving_way": why = .givingWay
        default: return nil
        }
        return Pacer.Status(
            rate: rate, ceiling: ceiling, floor: floor, reason: why, inFlight: inFlight, window: window, active: active)
    }
}
