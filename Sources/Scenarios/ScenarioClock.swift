import Foundation

/// The runner's notion of time, injected so tests run scenarios without waiting for them.
public protocol ScenarioClock: Sendable {
    func now() -> Date
    /// Throws `CancellationError` when the task is cancelled.
    func sleep(for seconds: TimeInterval) async throws
}

/// Wall time.
public struct SystemScenarioClock: ScenarioClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(for seconds: TimeInterval) async throws {
        try await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded())))
    }
}
