import Foundation
import Synchronization

/// The provider's only notion of time, injected so expiry and backoff are testable without sleeping.
public protocol ProviderClock: Sendable {
    func now() -> Date
}

/// A clock that can also be waited on: the update loop's ramp and slices, and the scenario
/// runner's steps. One protocol for both, so a test steps them all with one clock of its own.
public protocol SleepingClock: ProviderClock {
    /// Returns at `deadline` (at once if it has passed); throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

extension SleepingClock {
    public func sleep(for seconds: TimeInterval) async throws {
        try await sleep(until: now().addingTimeInterval(seconds))
    }
}

/// Wall time.
public struct SystemClock: SleepingClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) } else { try Task.checkCancellation() }
    }
}

/// A clock that moves only when told to. Shipped in the library (not the tests) because
/// the dashboard's render tests and the benchmark use it too.
public final class ManualClock: ProviderClock {
    // Guards the current instant; read from any task, moved by the test.
    private let current: Mutex<Date>
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Mutex(start) }
    public func now() -> Date { current.withLock { $0 } }
    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

/// The simulated phones' clock: another clock's time, off by an offset a scenario sets (a phone
/// whose clock is wrong judges expiry, and tokendash's rules, by its own time).
public final class DeviceClock: ProviderClock {
    /// The right time, which schedules keep to whatever the phone says.
    public let base: any ProviderClock
    /// The offset in microseconds: an atomic, not a lock, as every cache hit reads the clock.
    private let microseconds = Atomic<Int64>(0)

    public init(_ base: any ProviderClock = SystemClock()) { self.base = base }

    public func now() -> Date {
        let offset = microseconds.load(ordering: .relaxed)
        return offset == 0 ? base.now() : base.now().addingTimeInterval(Double(offset) / 1e6)
    }

    /// Seconds ahead of the base clock (negative: behind), held within ±1 day as a server's is.
    public func setOffset(_ seconds: TimeInterval) {
        let bound = InputBounds.serverClockOffset
        let held = seconds.isNaN ? 0 : min(bound, max(-bound, seconds))
        microseconds.store(Int64((held * 1e6).rounded()), ordering: .relaxed)
    }

    public var currentOffset: TimeInterval { Double(microseconds.load(ordering: .relaxed)) / 1e6 }
}

extension Duration {
    /// In seconds, as the loops and players that move by measured time compute with it.
    public var timeInterval: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
