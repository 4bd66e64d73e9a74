import Foundation

/// How long a provider host that ended waits before it is started again: 1, 2, 4 … 30 s after
/// each end in a row, so a class that dies at once does not spin, and back to 1 s once a host has
/// run for `healthyStretch`, so one crash an hour is not met with the longest wait. Pure: the
/// host's time up is passed in, read from the provider's clock.
struct RestartBackoff: Sendable {
    /// The longest wait between starts.
    static let longest: TimeInterval = 30
    /// A host that ran this long ended after a healthy stretch: its end starts the count again.
    static let healthyStretch: TimeInterval = 60

    /// Ends since the last healthy stretch.
    private(set) var endsInARow = 0

    /// The wait before the next start, for a host that ended after running `uptime` seconds.
    mutating func wait(afterRunning uptime: TimeInterval) -> TimeInterval {
        if uptime >= Self.healthyStretch { endsInARow = 0 }
        endsInARow += 1
        // 2^(n-1), computed without overflow however many ends came before.
        return endsInARow > 6 ? Self.longest : min(Self.longest, Double(1 << (endsInARow - 1)))
    }
}
