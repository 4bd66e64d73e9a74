import Foundation
import Synchronization

/// Fans provider events out to any number of readers, each with its own `AsyncStream`.
/// Many providers may share one broadcaster (a fleet publishes into a single stream).
public final class EventBroadcaster: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<ProviderEvent>.Continuation] = [:]
    }
    // Guards the subscriber table; publish runs on provider actors, subscribe anywhere.
    private let subscribers = Mutex(Subscribers())

    public init() {}

    /// A new stream of every event published from now on. A slow reader keeps the newest
    /// `buffer` events and loses older ones rather than growing without bound.
    public func subscribe(buffer: Int = 4096) -> AsyncStream<ProviderEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ProviderEvent.self, bufferingPolicy: .bufferingNewest(buffer))
        let key = subscribers.withLock { s -> Int in
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    public func publish(_ event: ProviderEvent) {
        let targets = subscribers.withLock { Array($0.continuations.values) }
        for c in targets { c.yield(event) }
    }

    /// Ends every stream, e.g. at shutdown so readers' loops return.
    public func finish() {
        let targets = subscribers.withLock { s -> [AsyncStream<ProviderEvent>.Continuation] in
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for c in targets { c.finish() }
    }
}
