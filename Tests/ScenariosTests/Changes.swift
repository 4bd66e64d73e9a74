import Synchronization
import Testing

/// Wakes a test waiting for a fact about a run: what the runner acts on (the clock, the target,
/// the reports) calls `changed()` after each change, and `until` checks its condition then, never
/// on a timer. A condition never met is ended by the suite's time limit: its cancellation turns
/// the wait into a recorded failure instead of a hang.
final class Changes: Sendable {
    private struct Waiter {
        let id: Int
        let condition: @Sendable () -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    // Guards the waiting tests and their conditions: changes come from any task. A condition may
    // read other locks (the clock's, the target's), which never call `changed()` while held.
    private let waiters = Mutex<(nextID: Int, list: [Waiter])>((0, []))

    func changed() {
        let met = waiters.withLock { waiters in
            let met = waiters.list.filter { $0.condition() }
            waiters.list.removeAll { waiter in met.contains { $0.id == waiter.id } }
            return met
        }
        for waiter in met { waiter.continuation.resume(returning: true) }
    }

    /// Returns once `condition` holds, checked now and after every change; records an issue and
    /// returns false when the wait is cancelled first (the suite's time limit).
    @discardableResult
    func until(
        _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable () -> Bool
    ) async -> Bool {
        let id = waiters.withLock { waiters in
            defer { waiters.nextID += 1 }
            return waiters.nextID
        }
        let met = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = waiters.withLock { waiters in
                    if condition() || Task.isCancelled { return true }
                    waiters.list.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if now { continuation.resume(returning: condition()) }
            }
        } onCancel: {
            let waiter = waiters.withLock { waiters in
                waiters.list.firstIndex { $0.id == id }.map { waiters.list.remove(at: $0) }
            }
            waiter?.continuation.resume(returning: false)
        }
        if !met { Issue.record("never so: \(what)", sourceLocation: sourceLocation) }
        return met
    }
}
