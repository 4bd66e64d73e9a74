import Dashboard
import Fleet
import FleetTables
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary

/// The running providers as an event source: every provider event as an action, and in a fleet
/// the aggregate rows and each kind's member table once a second.
public struct LiveEventSource: EventSource {
    private let events: AsyncStream<ProviderEvent>
    private let fleetEvents: AsyncStream<ProviderEvent>?
    private let aggregate: FleetAggregate?
    private let clock: any ProviderClock
    private let summaryInterval: Duration
    /// The last events, for snapshots; set it before `run`.
    public var tail: EventTail?
    /// What a watcher adds to the tables before they are sent (`tap`: its columns and churn per
    /// ID), fed the same events as the aggregate; set it before `run`.
    public var marks: (any FleetTableMarks)?
    /// The ramp's pace, sent with the fleet rows while it starts SDKs (nil when none runs); set it before `run`.
    public var rampPace: (@Sendable () -> Pacer.Status?)?

    /// Subscribes at once, before the providers start, so no early event is missed. `members`
    /// holds each kind's IDs in their SDKs' order; with more than one of any, fleet rows and
    /// member tables are sent, a row naming its member by that order.
    public init(
        broadcaster: EventBroadcaster, members: [ProviderKind: [String]], clock: any ProviderClock = SystemClock(),
        summaryInterval: Duration = .seconds(1)
    ) {
        let isFleet = members.values.contains { $0.count > 1 }
        self.init(
            broadcaster: broadcaster, aggregate: isFleet ? FleetAggregate(members: members) : nil, clock: clock,
            summaryInterval: summaryInterval)
    }

    /// As above, with only each kind's number of providers: members are learnt from the events.
    public init(
        broadcaster: EventBroadcaster, counts: [ProviderKind: Int], clock: any ProviderClock = SystemClock(),
        summaryInterval: Duration = .seconds(1)
    ) {
        let isFleet = counts.values.contains { $0 > 1 }
        self.init(
            broadcaster: broadcaster, aggregate: isFleet ? FleetAggregate(counts: counts) : nil, clock: clock,
            summaryInterval: summaryInterval)
    }

    /// A fleet of `kinds` whose members are learnt from the events, however many come (`tap`).
    public init(
        broadcaster: EventBroadcaster, learning kinds: [ProviderKind], clock: any ProviderClock = SystemClock(),
        summaryInterval: Duration = .seconds(1)
    ) {
        self.init(
            broadcaster: broadcaster, aggregate: FleetAggregate(learning: kinds), clock: clock,
            summaryInterval: summaryInterval)
    }

    private init(
        broadcaster: EventBroadcaster, aggregate: FleetAggregate?, clock: any ProviderClock, summaryInterval: Duration
    ) {
        events = broadcaster.subscribe(buffer: 1 << 16)
        // The aggregator reads its own stream: a pane's reader that falls behind must not skew the fleet's numbers.
        fleetEvents = aggregate == nil ? nil : broadcaster.subscribe(buffer: 1 << 17)
        self.aggregate = aggregate
        self.clock = clock
        self.summaryInterval = summaryInterval
    }

    public func run(into inbox: ActionInbox) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    tail?.record(event)
                    inbox.send(.event(event))
                }
            }
            if let aggregate, let fleetEvents {
                group.addTask {
                    for await event in fleetEvents {
                        aggregate.record(event)
                        marks?.record(event)
                    }
                }
                group.addTask {
                    // The pace is sent (and so recorded) when it changes, not every second.
                    var sentPace: Pacer.Status?? = .none
                    while !Task.isCancelled {
                        // Made here, off the UI thread: the screen gets at most
                        // `FleetTable.rowLimit` rows a kind, however large the fleet.
                        let now = clock.now()
                        // The tables come when the reducer asks for them after the rows, under
                        // the viewer's filters (`Effect.queryTables`).
                        inbox.send(.fleet(aggregate.summaries(now: now)))
                        if let rampPace {
                            let pace = rampPace()
                            if sentPace != .some(pace) {
                                sentPace = .some(pace)
                                inbox.send(.rampPace(pace))
                            }
                        }
                        try? await Task.sleep(for: summaryInterval)
                    }
                }
            }
        }
    }

    /// The member tables under the viewer's `filters` (`Effect.queryTables`).
    public func tables(filters: [ProviderKind: String]) -> [Action] {
        guard let aggregate else { return [] }
        let now = clock.now()
        let tables = aggregate.tables(now: now, filters: filters)
        return [.fleetTables(marks?.apply(to: tables, now: now) ?? tables)]
    }

    /// The ID of member `index` of `kind`, for following a member learnt from the events (`tap`,
    /// whose IDs are the real devices'); nil when there is no such member.
    public func memberID(_ kind: ProviderKind, index: Int) -> String? {
        aggregate?.memberID(kind, index: index)
    }

    /// The index of `id` among `kind`'s members, if it is one.
    public func memberIndex(_ kind: ProviderKind, id: String) -> Int? {
        aggregate?.memberIndex(kind, id: id)
    }
}
