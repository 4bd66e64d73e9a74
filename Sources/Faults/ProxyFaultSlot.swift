import Synchronization

/// The fault switched on at one source provider's loopback proxy: the one place that fault lives.
/// Switched by the dashboard or a scenario, read on every request the proxy takes, so a lock
/// rather than an actor hop.
public final class ProxyFaultSlot: Sendable {
    // Guards the fault; written by `set`, read by the proxy's connections.
    private let current = Mutex<FaultSetting?>(nil)

    public init() {}

    public func set(_ setting: FaultSetting?) { current.withLock { $0 = setting } }

    public var setting: FaultSetting? { current.withLock { $0 } }
}
