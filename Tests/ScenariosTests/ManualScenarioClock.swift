import Foundation
import ProviderVocabulary
import Scenarios
import Synchronization

/// A scenario clock that no real time moves. Manual, a sleep lasts until the test's `advance`
/// passes its end; automatic, each sleep moves the clock by its own length at once (scenario time
/// then runs as fast as the runner sleeps, exact to the second: for a runner that waits on
/// nothing else). Every sleep begun, ended or called off is signalled to `changes`.
final class ManualScenarioClock: SleepingClock {
    private enum Sleep {
        case due(Date)
        case waiting(Date, CheckedContinuation<Void, any Error>)
        case woken
        case cancelled
    }

    private struct State {
        var now = Date(timeIntervalSince1970: 0)
        var sleeps: [Int: Sleep] = [:]
        var nextID = 0
    }

    // Guards the time and the sleeps: moved by the test, read and slept on by the runner's tasks.
    private let state = Mutex(State())
    private let automatic: Bool
    private let changes: Changes

    init(automatic: Bool = false, changes: Changes) {
        self.automatic = automatic
        self.changes = changes
    }

    func now() -> Date { state.withLock { $0.now } }

    /// Sleeps begun and neither ended by `advance` nor called off.
    var sleeping: Int {
        state.withLock { state in
            state.sleeps.values.count { sleep in
                switch sleep {
                case .due, .waiting: true
                case .woken, .cancelled: false
                }
            }
        }
    }

    /// Moves the clock and ends the sleeps whose end it passes.
    func advance(by seconds: TimeInterval) {
        let woken = state.withLock { state in
            state.now += seconds
            var woken: [CheckedContinuation<Void, any Error>] = []
            for (id, sleep) in state.sleeps {
                switch sleep {
                case .due(let end) where end <= state.now:
                    state.sleeps[id] = .woken
                case .waiting(let end, let continuation) where end <= state.now:
                    state.sleeps[id] = .woken
                    woken.append(continuation)
                default:
                    break
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
        changes.changed()
    }

    func sleep(until deadline: Date) async throws {
        if automatic {
            try Task.checkCancellation()
            advance(by: max(0, deadline.timeIntervalSince(now())))
            return
        }
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.sleeps[state.nextID] = .due(deadline)
            return state.nextID
        }
        defer { state.withLock { _ = $0.sleeps.removeValue(forKey: id) } }
        changes.changed()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ended: Result<Void, any Error>? = state.withLock { state in
                    switch state.sleeps[id] {
                    case .due(let end):
                        state.sleeps[id] = .waiting(end, continuation)
                        return nil
                    case .woken: return .success(())
                    case .cancelled, .waiting, nil: return .failure(CancellationError())
                    }
                }
                if let ended { continuation.resume(with: ended) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                switch state.sleeps[id] {
                case .due:
                    state.sleeps[id] = .cancelled
                    return nil
                case .waiting(_, let continuation):
                    state.sleeps[id] = .cancelled
                    return continuation
                case .woken, .cancelled, nil:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
            changes.changed()
        }
    }
}
