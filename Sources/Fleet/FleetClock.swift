import Foundation

/// The update loop's notion of time: when the ramp started, and waiting for the next SDK's turn.
/// Injected so tests step a ramp of thousands of SDKs without waiting for it.
public protocol FleetClock: Sendable {
    func now() -> Date
    /// Returns at `deadline` (at once if it has passed); throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// Wall time.
public struct SystemFleetClock: FleetClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) } else { try Task.checkCancellation() }
    }
}
