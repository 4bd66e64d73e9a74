import Foundation

/// How a fleet's SDKs make their first calls: spread evenly over `duration` seconds, as a real
/// fleet's apps open over a morning rather than in one instant. Without it 100,000 SDKs ask the
/// backend at once, and one that mints 3,000 tokens a second times thousands of them out.
/// A duration of 0 keeps that stampede, for a deliberate storm test.
public struct FleetRamp: Sendable, Equatable {
    /// New SDKs a second when no duration is given: what the embedded server mints with a core
    /// to spare for the fleet's own decoding, rules and HTTP.
    public static let defaultRate = 1000.0

    public var duration: TimeInterval

    public init(duration: TimeInterval) { self.duration = max(0, duration) }

    /// `total` SDKs (both sides together) at `defaultRate` a second.
    public static func atDefaultRate(total: Int) -> FleetRamp { FleetRamp(duration: Double(max(0, total)) / defaultRate) }

    /// Whether the first calls are spread at all.
    public var spreads: Bool { duration > 0 }

    /// Seconds after the start at which member `index` of `count` makes its first call: member 0 at
    /// once, the others evenly behind it, so each side of a fleet ramps over the same duration.
    public func start(of index: Int, count: Int) -> TimeInterval {
        guard spreads, count > 0 else { return 0 }
        return duration * Double(index) / Double(count)
    }

    /// How many of `count` members have made their first call `elapsed` seconds after the start.
    public func started(count: Int, after elapsed: TimeInterval) -> Int {
        guard spreads else { return count }
        guard elapsed >= 0 else { return 0 }
        // Those whose start is at or before `elapsed`: index <= elapsed * count / duration.
        let due = (elapsed / duration * Double(count)).rounded(.down)
        return due >= Double(count) ? count : Int(due) + 1
    }
}
