import Foundation
import Synchronization

/// The provider's only notion of time, injected so expiry and backoff are testable without sleeping.
public protocol ProviderClock: Sendable {
    func now() -> Date
}

public struct SystemClock: ProviderClock {
    public init() {}
    public func now() -> Date { Date() }
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
