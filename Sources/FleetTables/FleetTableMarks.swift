import Foundation
import ProviderEvents
import ProviderVocabulary

/// What a watcher adds to the fleet tables that the aggregate's member records cannot hold
/// (`tap`: fetches, tokens, verdict and lifetime per ID, and churn). Fed the same provider events
/// as the aggregate, live and in a replay, so a replay's table reads as the live one did.
public protocol FleetTableMarks: Sendable {
    func record(_ event: ProviderEvent)
    func apply(to tables: [ProviderKind: FleetTable], now: Date) -> [ProviderKind: FleetTable]
    /// One ID's last hour, for the pane that follows it; nil when the watcher keeps none.
    func history(_ kind: ProviderKind, id: String, now: Date) -> TappedHistory?
}

extension FleetTableMarks {
    public func history(_ kind: ProviderKind, id: String, now: Date) -> TappedHistory? { nil }
}
