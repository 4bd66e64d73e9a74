import Foundation

/// The bounds every number from outside (flags, config files, scenarios, recordings, fault
/// routes) is checked against where it is parsed: a value outside is refused with its place and
/// the bound, so no later arithmetic on it can trap. docs/limits.md lists them; a flag's
/// own range is its entry in the settings table (the `Settings` module).
public enum InputBounds {
    /// Any duration: flags, config settings, scenario steps, a fault's latency. 30 days.
    public static let longestDuration: TimeInterval = 30 * 86_400
    /// How far a scenario may set the embedded server's clock off: a day either way.
    public static let serverClockOffset: TimeInterval = 86_400
    /// How far from a recording's start any time in it may lie: ten years either way.
    public static let recordedOffset: TimeInterval = 10 * 365 * 86_400
    /// A recording's start, as seconds since 2001-01-01: the years 1901 to 2100.
    public static let recordingStart: ClosedRange<Double> = -3_155_760_000...3_155_760_000
    /// Counts a run can reach: a provider answering a million calls a second for ten years is
    /// under 2^49; a recording's count past this is garbage, not a long run.
    public static let largestCount = 1 << 50

    /// A number of seconds as an Int without trapping on values an `Int` cannot hold (a token's
    /// claims can say 1e300); for messages and display.
    public static func wholeSeconds(_ t: TimeInterval) -> Int {
        guard t.isFinite else { return t > 0 ? Int.max : (t < 0 ? Int.min : 0) }
        return Int(min(max(t, -9e18), 9e18))
    }

    /// `value` within ±`bound` (and finite).
    public static func within(_ value: Double, _ bound: Double) -> Bool { value.isFinite && abs(value) <= bound }

    /// `duration` (seconds) as "30 days", "1 day", "1 h", "0.05 s" for messages about a bound
    /// and docs/limits.md.
    public static func describe(_ seconds: TimeInterval) -> String {
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 {
            let days = Int(seconds / 86_400)
            return days == 1 ? "1 day" : "\(days) days"
        }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        // Whole seconds without `.0` (docs/limits.md's "1 s"); the bound keeps `Int` from trapping.
        if seconds == seconds.rounded(), abs(seconds) < 1e15 { return "\(Int(seconds)) s" }
        return "\(seconds) s"
    }
}

extension Int {
    /// The sum, held at `Int.max`/`Int.min` instead of trapping.
    public func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `value` rounded down, held within `Int`'s range (NaN is 0): a time from outside never traps.
    public static func clamping(_ value: Double) -> Int {
        guard value.isFinite else { return value.isNaN ? 0 : value > 0 ? .max : .min }
        // 2^63 is the first Double past Int.max.
        if value >= 9_223_372_036_854_775_808.0 { return .max }
        if value < -9_223_372_036_854_775_808.0 { return .min }
        return Int(value.rounded(.down))
    }
}
