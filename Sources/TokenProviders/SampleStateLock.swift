import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenJudging

/// What a sample port keeps under its lock: the sample's own variables, and the ledger that
/// reports what they do as provider events.
protocol SampleState: Sendable {
    var ledger: SampleLedger { get set }
}

/// A sample port's one lock, shared by both ports: a step runs under it and the events it queued
/// are published before it is let go, so that one provider's events keep their order; and the
/// ledger's facts the dashboard reads. Held for a step, never across a request.
final class SampleStateLock<State: SampleState>: Sendable {
    private let state: Mutex<State>
    private let events: EventBroadcaster

    init(_ initial: State, events: EventBroadcaster) {
        state = Mutex(initial)
        self.events = events
    }

    @discardableResult
    func change<T: Sendable>(_ body: (inout State) -> T) -> T {
        state.withLock { s in
            let result = body(&s)
            for event in s.ledger.takeOutbox() { events.publish(event) }
            return result
        }
    }

    func read<T: Sendable>(_ body: (State) -> T) -> T { state.withLock { body($0) } }

    var lastFailure: FleetAuthError? { read { $0.ledger.lastFailure } }
    var requestsInFlight: Int { read { $0.ledger.requestsInFlight } }
    var refusedToken: String? { read { $0.ledger.refusedToken } }
    func publishCountedEvents() { change { $0.ledger.publishHits() } }
}
