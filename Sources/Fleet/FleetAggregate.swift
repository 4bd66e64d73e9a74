import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization

/// Every kind's fleet statistics behind one lock: a collector records each provider event, a
/// once-a-second reader summarises them for the dashboard's fleet rows and member tables.
public final class FleetAggregate: Sendable {
    // Guards the statistics; written by the collector task, read by the summariser and by the
    // effects that ask for tables and members.
    private let stats: Mutex<[ProviderKind: FleetStatistics]>
    private let counts: [ProviderKind: Int]

    /// One entry per kind with its members' IDs in their SDKs' order (a member's index is its
    /// SDK's); events of any other kind are not counted.
    public init(members: [ProviderKind: [String]]) {
        counts = members.mapValues(\.count)
        stats = Mutex(members.mapValues { FleetStatistics(ids: $0) })
    }

    /// One entry per kind with its number of providers, IDs learnt from the events.
    public init(counts: [ProviderKind: Int]) {
        self.counts = counts
        stats = Mutex(counts.mapValues { FleetStatistics(capacity: $0) })
    }

    /// Members learnt from the events and counted as they come, no fleet size known up front
    /// (`tap`'s real devices): the rows' SDK counts are the IDs seen.
    public init(learning kinds: [ProviderKind]) {
        counts = [:]
        stats = Mutex(Dictionary(uniqueKeysWithValues: kinds.map { ($0, FleetStatistics()) }))
    }

    public func record(_ event: ProviderEvent) { stats.withLock { $0[event.provider]?.record(event) } }

    public func summaries(now: Date) -> [ProviderKind: FleetSummary] {
        stats.withLock { all in
            all.reduce(into: [:]) { $0[$1.key] = $1.value.summary(now: now, providers: counts[$1.key]) }
        }
    }

    /// Each kind's member table under `filters`, the viewer's (the one place they are kept: each
    /// request brings them): the rows the dashboard's table shows.
    public func tables(now: Date, filters: [ProviderKind: String] = [:]) -> [ProviderKind: FleetTable] {
        stats.withLock { all in
            all.reduce(into: [:]) { $0[$1.key] = $1.value.table(now: now, filter: filters[$1.key] ?? "") }
        }
    }

    /// Member `index` of `kind`'s ID, among all members, not only the rows of a table.
    public func memberID(_ kind: ProviderKind, index: Int) -> String? {
        stats.withLock { $0[kind]?.id(of: index) }
    }

    /// The index of `kind`'s member whose ID is `id`, among all members.
    public func memberIndex(_ kind: ProviderKind, id: String) -> Int? {
        stats.withLock { $0[kind]?.index(of: id) }
    }
}
