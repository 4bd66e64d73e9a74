import FleetAuth
import Foundation
import Synchronization

/// Collects the events of one subscription so a test can wait for a particular one without
/// sleeping. A wait that times out throws, naming what it waited for and every event it saw, so
/// a missing event fails the test where it was awaited (and never hangs it).
public final class EventRecorder: Sendable {
    /// What a wait that timed out saw.
    public struct Timeout: Error, CustomStringConvertible {
        public let awaited: String
        public let seconds: Double
        public let seen: [ProviderEvent]
        public var description: String {
            let events = seen.map { "\($0.name) \($0.provider.rawValue) \($0.id)" }
            return "no \(awaited) event within \(seconds) s; seen: \(events.isEmpty ? "none" : events.joined(separator: ", "))"
        }
    }

    private let stream: AsyncStream<ProviderEvent>
    // Guards everything seen so far; appended by the task reading the stream, read by the test.
    private let seen = Mutex<[ProviderEvent]>([])

    public init(_ broadcaster: EventBroadcaster) { stream = broadcaster.subscribe() }

    /// Waits for the next event matching `predicate` and returns it; earlier events that do not
    /// match are kept in `all`. Throws `Timeout` after `seconds` of wall time.
    @discardableResult
    public func next(_ awaited: String = "matching", within seconds: Double = 10,
                     where predicate: @escaping @Sendable (ProviderEvent) -> Bool) async throws -> ProviderEvent {
        let found = await withTaskGroup(of: ProviderEvent?.self) { group in
            group.addTask {
                for await event in self.stream {
                    self.seen.withLock { $0.append(event) }
                    if predicate(event) { return event }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let found else { throw Timeout(awaited: awaited, seconds: seconds, seen: all) }
        return found
    }

    /// Waits for the next event named `name` (`fetched`, `fetch_failed`, … as `watch` prints them).
    @discardableResult
    public func next(named name: String, within seconds: Double = 10) async throws -> ProviderEvent {
        try await next(name, within: seconds) { $0.name == name }
    }

    /// Every event seen so far, in order.
    public var all: [ProviderEvent] { seen.withLock { $0 } }
}

extension ProviderEvent {
    public var isFetched: Bool { if case .fetched = kind { return true }; return false }
    /// The token of a `fetched` event.
    public var token: FetchedToken? { if case .fetched(let token, _) = kind { return token }; return nil }
    /// The error of a `fetch_failed` event.
    public var failure: FleetAuthError? { if case .fetchFailed(let e, _) = kind { return e }; return nil }
    /// The reason of a `fetch_started` event.
    public var fetchReason: FetchReason? { if case .fetchStarted(let reason) = kind { return reason }; return nil }
}

/// Polls `condition` until it holds, giving up after `seconds` of wall time so a broken rule fails
/// the test instead of hanging the run. It returns within a millisecond of the state being
/// reached; between polls it sleeps rather than spins, because a spinning wait takes a core
/// from the very tasks it waits for. (Seen on 2 cores under load: three spinning waits of 1,000
/// and 50 callers timed out, and the tmux tests running beside them missed their deadlines.)
@discardableResult
public func eventually(within seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return await condition()
}
