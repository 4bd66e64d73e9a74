import Foundation

/// Delay before the next attempt after consecutive failures: doubling from `initial` up to
/// `maximum`, each scaled by up to ±`jitter` so a fleet of providers does not retry in lockstep.
public struct BackoffPolicy: Sendable, Equatable {
    public var initial: TimeInterval
    public var maximum: TimeInterval
    public var jitter: Double

    public init(initial: TimeInterval = 1, maximum: TimeInterval = 60, jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// `unit` is a random number in 0..<1; 0.5 gives the delay without jitter.
    public func delay(afterFailures failures: Int, unit: Double) -> TimeInterval {
        guard failures > 0 else { return 0 }
        let base = min(maximum, initial * pow(2, Double(min(failures - 1, 62))))
        return max(0, base * (1 + jitter * (2 * unit - 1)))
    }
}
