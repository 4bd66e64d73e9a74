import Fleet
import FleetAuth
import Foundation

/// What a replay rebuilds the fleet's rows and tables from, as the live source makes them: the
/// aggregate, and a watcher's marks (`tap`'s columns and churn) fed the same recorded events.
public struct ReplayFleet: Sendable {
    let aggregate: FleetAggregate
    let marks: (any FleetTableMarks)?

    func record(_ event: ProviderEvent) {
        aggregate.record(event)
        marks?.record(event)
    }

    func summaries(now: Date) -> [ProviderKind: FleetSummary] { aggregate.summaries(now: now) }

    /// The tables under the viewer's `filters`, as `LiveEventSource.tables(filters:)` makes them.
    func tables(now: Date, filters: [ProviderKind: String]) -> [ProviderKind: FleetTable] {
        let tables = aggregate.tables(now: now, filters: filters)
        return marks?.apply(to: tables, now: now) ?? tables
    }
}
