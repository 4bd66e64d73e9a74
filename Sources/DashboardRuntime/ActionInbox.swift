import Dashboard
import Foundation
import Synchronization

/// Actions waiting for the UI thread: provider events and the answers of effects, queued from any
/// task and drained by the loop. Sending wakes the loop, so an answer shows at once, not at the
/// next key timeout.
public final class ActionInbox: Sendable {
    private struct Queue {
        var actions: [Action] = []
        var wake: (@Sendable () -> Void)?
        /// Actions refused since the last drain because the queue was full.
        var dropped = 0
    }
    // Guards the queue and the wake-up; producers are async tasks, the consumer is the UI thread.
    private let queue = Mutex(Queue())
    /// A bound on what waits between two frames, so a stalled UI cannot grow memory without limit.
    public static let limit = 100_000

    public init() {}

    public func send(_ action: Action) {
        let wake = queue.withLock { q -> (@Sendable () -> Void)? in
            guard q.actions.count < Self.limit else {
                q.dropped += 1
                return nil
            }
            q.actions.append(action)
            // Only the first action of a batch wakes: the loop drains them all at once.
            return q.actions.count == 1 ? q.wake : nil
        }
        wake?()
    }

    /// Everything queued, oldest first. When the queue was full and actions were dropped, a
    /// message saying how many ends the batch: the screen then lags the providers, and says so.
    public func drain() -> [Action] {
        queue.withLock { q in
            defer {
                q.actions.removeAll(keepingCapacity: true)
                q.dropped = 0
            }
            guard q.dropped > 0 else { return q.actions }
            return q.actions + [
                .message(
                    "\(q.dropped) update\(q.dropped == 1 ? "" : "s") dropped: the screen fell \(Self.limit.formatted()) behind"
                )
            ]
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
