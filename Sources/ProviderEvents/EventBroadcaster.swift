import Foundation
import Synchronization

/// Something that counts events instead of publishing each (a provider's cache hits) and
/// publishes the count when its broadcaster asks.
package protocol CountedEventSource: AnyObject, Sendable {
    /// Publishes what was counted since the last call, if anything.
    func publishCountedEvents()
}

/// Fans provider events out to any number of readers, each with its own `AsyncStream`.
/// Many providers may share one broadcaster (a fleet publishes into a single stream).
///
/// Cache hits are not published one by one: a provider counts them and the broadcaster has it
/// publish the count at most `hitFlushInterval` after the first, or sooner when the provider's
/// next other event is published, when `flushCountedEvents()` is called, or at `finish()`.
/// With no subscriber, publishing costs one atomic load and hits are not counted.
public final class EventBroadcaster: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<ProviderEvent>.Continuation] = [:]
        /// `continuations`' values, rebuilt when one comes or goes, so a publish only retains it.
        var targets: [AsyncStream<ProviderEvent>.Continuation] = []

        mutating func rebuild(_ count: borrowing Atomic<Int>) {
            targets = Array(continuations.values)
            count.store(targets.count, ordering: .releasing)
        }
    }

    private struct Counted {
        var sources: [any CountedEventSource] = []
        var flusherRunning = false
    }

    // Guards the subscriber table; publish runs on provider actors and under provider locks, subscribe anywhere.
    private let subscribers = Mutex(Subscribers())
    /// The table's size, so that publishing to nobody takes no lock and builds nothing.
    private let subscriberCount = Atomic<Int>(0)
    // Guards the sources whose counts wait to be published and whether the flush task runs.
    private let counted = Mutex(Counted())
    /// The longest a counted hit waits before it is published.
    public let hitFlushInterval: Duration

    public init(hitFlushInterval: Duration = .milliseconds(250)) {
        self.hitFlushInterval = hitFlushInterval
    }

    /// Whether anyone reads: providers count hits only then.
    public var isObserved: Bool { subscriberCount.load(ordering: .acquiring) > 0 }

    /// A new stream of every event published from now on. A slow reader keeps the newest
    /// `buffer` events and loses older ones rather than growing without bound.
    public func subscribe(buffer: Int = 4096) -> AsyncStream<ProviderEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ProviderEvent.self, bufferingPolicy: .bufferingNewest(buffer))
        let key = subscribers.withLock { s -> Int in
            s.next += 1
            s.continuations[s.next] = continuation
            s.rebuild(subscriberCount)
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.subscribers.withLock { s in
                guard s.continuations.removeValue(forKey: key) != nil else { return }
                s.rebuild(self.subscriberCount)
            }
        }
        return stream
    }

    public func publish(_ event: ProviderEvent) {
        guard isObserved else { return }
        let targets = subscribers.withLock { $0.targets }
        for c in targets { c.yield(event) }
    }

    /// Has `source` publish its counts within `hitFlushInterval`. Called once per batch, by the
    /// call that counted its first event.
    package func publishLater(_ source: any CountedEventSource) {
        let start = counted.withLock { c -> Bool in
            c.sources.append(source)
            guard !c.flusherRunning else { return false }
            c.flusherRunning = true
            return true
        }
        if start { Task.detached { await self.flushPeriodically() } }
    }

    /// Publishes every count waiting now, e.g. before reading a total, rather than within `hitFlushInterval`.
    public func flushCountedEvents() {
        let due = counted.withLock { c -> [any CountedEventSource] in
            defer { c.sources = [] }
            return c.sources
        }
        for source in due { source.publishCountedEvents() }
    }

    /// Flushes every interval while counts keep coming; ends after an interval without any.
    private func flushPeriodically() async {
        while true {
            try? await Task.sleep(for: hitFlushInterval)
            let due = counted.withLock { c -> [any CountedEventSource] in
                defer { c.sources = [] }
                if c.sources.isEmpty { c.flusherRunning = false }
                return c.sources
            }
            if due.isEmpty { return }
            for source in due { source.publishCountedEvents() }
        }
    }

    /// Publishes the counts still waiting, then ends every stream, e.g. at shutdown so readers' loops return.
    public func finish() {
        flushCountedEvents()
        let targets = subscribers.withLock { s -> [AsyncStream<ProviderEvent>.Continuation] in
            defer {
                s.continuations.removeAll()
                s.rebuild(subscriberCount)
            }
            return s.targets
        }
        for c in targets { c.finish() }
    }
}
