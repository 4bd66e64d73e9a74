import Synchronization
import Testing

/// Wakes a test waiting for a fact about a run: what the runner acts on (the clock, the target,
/// the reports) calls `changed()` after each change, and `until` checks its condition then, never
/// on a timer. The wall-clock limit only turns a condition that is never met into a failure
/// instead of a hang; it is never what lets a test pass.
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
    /// returns false when it still does not after `limit` of wall time.
    @discardableResult
    func until(_ what: Comment, limit: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation,
               _ condition: @escaping @Sendable () -> Bool) async -> Bool {
        let id = waiters.withLock { waiters in
            defer { waiters.nextID += 1 }
            return waiters.nextID
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            let waiter = waiters.withLock { waiters in
                waiters.list.firstIndex { $0.id == id }.map { waiters.list.remove(at: $0) }
            }
            waiter?.continuation.resume(returning: false)
        }
        defer { timer.cancel() }
        let met = await withCheckedContinuation { continuation in
            let now = waiters.withLock { waiters in
                if condition() { return true }
                waiters.list.append(Waiter(id: id, condition: condition, continuation: continuation))
                return false
            }
            if now { continuation.resume(returning: true) }
        }
        if !met { Issue.record("still not so after \(limit): \(what)", sourceLocation: sourceLocation) }
        return met
    }
}
