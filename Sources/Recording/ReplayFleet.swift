import Dashboard
import Fleet
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary

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

    /// Member `index` of `kind` as the replay's fleet has it at `now` (the answer to
    /// `Effect.follow`): its ID, and for a tap's recording its last hour from the marks, as the
    /// tap's own performer answers live.
    func member(_ kind: ProviderKind, index: Int, now: Date) -> MemberSnapshot? {
        guard let id = aggregate.memberID(kind, index: index) else { return nil }
        let history = marks?.history(kind, id: id, now: now)
        return MemberSnapshot(id: id, token: history?.token, tapped: history)
    }

    func memberIndex(_ kind: ProviderKind, id: String) -> Int? { aggregate.memberIndex(kind, id: id) }

    /// A recorded `.following` with the followed ID's last hour, which a recording does not keep
    /// (its line holds the ID and token): the marks, fed the same events, give it as live did.
    func completed(_ action: Action, at now: Date) -> Action {
        guard case .following(let kind, let index, var member) = action, member.tapped == nil,
            let history = marks?.history(kind, id: member.id, now: now)
        else { return action }
        member.tapped = history
        return .following(kind, index: index, member: member)
    }

    /// The tables under the viewer's `filters`, as `LiveEventSource.tables(filters:)` makes them.
    func tables(now: Date, filters: [ProviderKind: String]) -> [ProviderKind: FleetTable] {
        let tables = aggregate.tables(now: now, filters: filters)
        return marks?.apply(to: tables, now: now) ?? tables
    }
}
