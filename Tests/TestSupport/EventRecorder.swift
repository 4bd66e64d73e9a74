import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization

/// Collects the events of one subscription so a test can wait for a particular one without
/// sleeping. A wait lasts until the event comes: a missing one is ended by the suite's time
/// limit, whose cancellation makes the wait throw, naming what it waited for and every event it
/// saw, so the test fails where it was awaited (and never hangs the run).
public final class EventRecorder: Sendable {
    /// What a wait that ended without its event saw.
    public struct NotSeen: Error, CustomStringConvertible {
        public let awaited: String
        public let seen: [ProviderEvent]
        public var description: String {
            let events = seen.map { "\($0.name) \($0.provider.rawValue) \($0.id)" }
            return "no \(awaited) event; seen: \(events.isEmpty ? "none" : events.joined(separator: ", "))"
        }
    }

    private let stream: AsyncStream<ProviderEvent>
    // Guards everything seen so far; appended by the task reading the stream, read by the test.
    private let seen = Mutex<[ProviderEvent]>([])

    public init(_ broadcaster: EventBroadcaster) { stream = broadcaster.subscribe() }

    /// Waits for the next event matching `predicate` and returns it; earlier events that do not
    /// match are kept in `all`. Throws `NotSeen` if the wait is cancelled or the stream ends first.
    @discardableResult
    public func next(_ awaited: String = "matching", where predicate: @escaping @Sendable (ProviderEvent) -> Bool)
        async throws -> ProviderEvent
    {
        // An AsyncStream's iteration ends when the waiting task is cancelled.
        for await event in stream {
            seen.withLock { $0.append(event) }
            if predicate(event) { return event }
        }
        throw NotSeen(awaited: awaited, seen: all)
    }

    /// Waits for the next event named `name` (`fetched`, `fetch_failed`, … as `watch` prints them).
    @discardableResult
    public func next(named name: String) async throws -> ProviderEvent {
        try await next(name) { $0.name == name }
    }

    /// Every event seen so far, in order.
    public var all: [ProviderEvent] { seen.withLock { $0 } }
}

extension ProviderEvent {
    public var isFetched: Bool {
        if case .fetched = kind { return true }
        return false
    }
    /// The token of a `fetched` event.
    public var token: FetchedToken? {
        if case .fetched(let token, _) = kind { return token }
        return nil
    }
    /// The error of a `fetch_failed` event.
    public var failure: FleetAuthError? {
        if case .fetchFailed(let e, _) = kind { return e }
        return nil
    }
    /// The reason of a `fetch_started` event.
    public var fetchReason: FetchReason? {
        if case .fetchStarted(let reason) = kind { return reason }
        return nil
    }
}

/// Polls `condition` until it holds: for a state inside an actor or a fleet that publishes no
/// event when it changes (callers parked, loops asleep), a log a daemon writes, or a Prometheus
/// that cannot say it scraped. It is the tests' one poll: each check is of the fact itself, never
/// a sleep to let something happen. Between checks it sleeps `every` rather than spins, because a
/// spinning wait takes a core from the very tasks it waits for. There is no deadline of its own: a
/// state never reached is ended by the suite's time limit, whose cancellation makes it return false.
@discardableResult
public func eventually(every interval: Duration = .milliseconds(1), _ condition: () async throws -> Bool)
    async rethrows -> Bool
{
    while !Task.isCancelled {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
