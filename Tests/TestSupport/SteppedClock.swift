import Foundation
import ProviderVocabulary
import Synchronization

/// A clock that moves only when the test says: sleepers wake when it passes their deadline,
/// so a ten-second ramp of a thousand SDKs, or a transport's hour-long timeout, runs in no wall time.
public final class SteppedClock: SleepingClock {
    private struct Sleeper {
        let deadline: Date
        let wake: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }
    public let manual: ManualClock
    // Guards the sleepers; added by the loops' tasks, woken by the test.
    private let state = Mutex(State())

    public init(_ manual: ManualClock = ManualClock()) { self.manual = manual }

    public func now() -> Date { manual.now() }

    public func sleep(until deadline: Date) async throws {
        if deadline <= manual.now() { return try Task.checkCancellation() }
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
                // Judged under the lock `advance` scans with: time that moved on since the check
                // above is seen here, or this sleeper is in the list that `advance` scans.
                enum Outcome { case asleep, due, cancelled }
                let outcome = state.withLock { s -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= manual.now() { return .due }
                    s.sleepers[id] = Sleeper(deadline: deadline, wake: wake)
                    return .asleep
                }
                switch outcome {
                case .asleep: break
                case .due: wake.resume()
                case .cancelled: wake.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.wake.resume(throwing: CancellationError())
        }
    }

    /// Moves time on and wakes every sleeper whose deadline it reached.
    public func advance(by seconds: TimeInterval) {
        let due = state.withLock { s -> [Sleeper] in
            manual.advance(by: seconds)
            let now = manual.now()
            let due = s.sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { s.sleepers.removeValue(forKey: key) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.wake.resume() }
    }

    /// Sleepers waiting now: a loop that went back to sleep has done what was due.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }
}
