import Dashboard
import Fleet
import FleetAuth
import Foundation

/// The running providers as an event source: every provider event as an action, and in a fleet
/// the aggregate rows once a second.
public struct LiveEventSource: EventSource {
    private let events: AsyncStream<ProviderEvent>
    private let fleetEvents: AsyncStream<ProviderEvent>?
    private let aggregate: FleetAggregate?
    private let clock: any ProviderClock
    private let summaryInterval: Duration

    /// Subscribes at once, before the providers start, so no early event is missed. `counts`
    /// holds each kind's number of providers; with more than one of any, fleet rows are sent.
    public init(broadcaster: EventBroadcaster, counts: [ProviderKind: Int], clock: any ProviderClock = SystemClock(),
                summaryInterval: Duration = .seconds(1)) {
        events = broadcaster.subscribe(buffer: 1 << 16)
        let isFleet = counts.values.contains { $0 > 1 }
        // The aggregator reads its own stream: a pane's reader that falls behind must not skew the fleet's numbers.
        fleetEvents = isFleet ? broadcaster.subscribe(buffer: 1 << 17) : nil
        aggregate = isFleet ? FleetAggregate(counts: counts) : nil
        self.clock = clock
        self.summaryInterval = summaryInterval
    }

    public func run(into inbox: ActionInbox) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events { inbox.send(.event(event)) }
            }
            if let aggregate, let fleetEvents {
                group.addTask {
                    for await event in fleetEvents { aggregate.record(event) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        inbox.send(.fleet(aggregate.summaries(now: clock.now())))
                        try? await Task.sleep(for: summaryInterval)
                    }
                }
            }
        }
    }
}
