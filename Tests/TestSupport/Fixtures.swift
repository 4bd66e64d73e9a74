import Foundation

/// The fixed instant the tests on a manual clock start at: 2027-01-15 08:00:00 UTC, also
/// `ManualClock`'s default start.
public enum TestTime {
    public static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    /// `t0` in epoch seconds, as `iat` and `exp` carry it.
    public static let seconds = 1_800_000_000
}
