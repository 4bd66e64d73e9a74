import Foundation

/// How a fleet's SDKs make their first calls: in order over `duration` seconds at most, as a real
/// fleet's apps open over a morning rather than in one instant. Without it 100,000 SDKs ask the
/// backend at once, and one that mints 3,000 tokens a second times thousands of them out.
/// The duration sets the ceiling of the rate; the backend's answers may slow it (`Pacer`), so a
/// slow backend gets its SDKs later rather than timing them out.
/// A duration of 0 keeps that stampede, for a deliberate storm test.
public struct FleetRamp: Sendable, Equatable {
    /// New SDKs a second when no duration is given: what the embedded server mints with a core
    /// to spare for the fleet's own decoding, rules and HTTP.
    public static let defaultRate = 1000.0

    public var duration: TimeInterval

    public init(duration: TimeInterval) { self.duration = max(0, duration) }

    /// `total` SDKs (both sides together) at `defaultRate` a second.
    public static func atDefaultRate(total: Int) -> FleetRamp {
        FleetRamp(duration: Double(max(0, total)) / defaultRate)
    }

    /// New SDKs a second for `count` of them: the most the ramp starts, when the backend keeps up.
    public func rate(count: Int) -> Double { spreads ? Double(max(1, count)) / duration : .infinity }

    /// Whether the first calls are spread at all.
    public var spreads: Bool { duration > 0 }
}
