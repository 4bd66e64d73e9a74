import Dashboard
import UICore
import Synchronization

/// Actions waiting for the UI thread: provider events and the results of effects, queued from any
/// task and drained by the UI loop between key waits.
final class ActionInbox: Sendable {
    // Guards the queue; producers are async tasks, the consumer is the UI thread.
    private let queue = Mutex<[Action]>([])
    /// A bound on what waits between two frames, so a stalled UI cannot grow memory without limit.
    static let limit = 100_000

    func send(_ action: Action) {
        queue.withLock { q in
            if q.count < Self.limit { q.append(action) }
        }
    }

    func drain() -> [Action] {
        queue.withLock { q in
            defer { q.removeAll(keepingCapacity: true) }
            return q
        }
    }
}
