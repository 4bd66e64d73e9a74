import Dashboard
import Synchronization

/// Actions waiting for the UI thread: provider events and the answers of effects, queued from any
/// task and drained by the loop. Sending wakes the loop, so an answer shows at once, not at the
/// next key timeout.
public final class ActionInbox: Sendable {
    private struct Queue {
        var actions: [Action] = []
        var wake: (@Sendable () -> Void)?
    }
    // Guards the queue and the wake-up; producers are async tasks, the consumer is the UI thread.
    private let queue = Mutex(Queue())
    /// A bound on what waits between two frames, so a stalled UI cannot grow memory without limit.
    public static let limit = 100_000

    public init() {}

    public func send(_ action: Action) {
        let wake = queue.withLock { q -> (@Sendable () -> Void)? in
            guard q.actions.count < Self.limit else { return nil }
            q.actions.append(action)
            // Only the first action of a batch wakes: the loop drains them all at once.
            return q.actions.count == 1 ? q.wake : nil
        }
        wake?()
    }

    public func drain() -> [Action] {
        queue.withLock { q in
            defer { q.actions.removeAll(keepingCapacity: true) }
            return q.actions
        }
    }

    /// Wakes the loop without an action (a signal arrived, say).
    public func wake() {
        queue.withLock { $0.wake }?()
    }

    /// Set by the loop when it starts waiting on a terminal.
    func setWaker(_ wake: (@Sendable () -> Void)?) {
        queue.withLock { $0.wake = wake }
    }
}
