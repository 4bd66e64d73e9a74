import FleetAuth
import Foundation
import Synchronization

/// Every kind's fleet statistics behind one lock: a collector records each provider event, a
/// once-a-second reader summarises them for the dashboard's fleet rows.
public final class FleetAggregate: Sendable {
    // Guards the statistics; written by the collector task, read by the summariser.
    private let stats: Mutex<[ProviderKind: FleetStatistics]>
    private let counts: [ProviderKind: Int]

    /// One entry per kind with its number of providers; events of any other kind are not counted.
    public init(counts: [ProviderKind: Int]) {
        self.counts = counts
        stats = Mutex(Dictionary(uniqueKeysWithValues: counts.keys.map { ($0, FleetStatistics()) }))
    }

    public func record(_ event: ProviderEvent) { stats.withLock { $0[event.provider]?.record(event) } }

    public func summaries(now: Date) -> [ProviderKind: FleetSummary] {
        stats.withLock { all in
            all.reduce(into: [ProviderKind: FleetSummary]()) { $0[$1.key] = $1.value.summary(now: now, providers: counts[$1.key] ?? 0) }
        }
    }
}
