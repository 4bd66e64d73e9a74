import Dashboard
import DashboardRuntime
import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import TapReading

/// The effects of the tap's dashboard: the fleet table's query, following a real ID (its pane
/// shows that ID's last hour from the ledger, then its exchanges as they come), themes, marks and snapshots. Keys that act on
/// providers or a server (refresh, new IDs, faults, scenarios) have nothing to act on: the devices
/// are real, and the message says so.
struct TapEffectPerformer: EffectPerformer {
    let source: LiveEventSource
    let snapshots: SnapshotWriter
    let loadTheme: @Sendable (String) -> Action

    func perform(_ effect: Effect) async -> [Action] {
        switch effect {
        case .queryTables(let filters): source.tables(filters: filters)
        case .follow(let kind, let index):
            [.following(kind, index: index, member: member(kind, index: index))]
        case .findMember(let kind, let id, let from):
            [.memberFound(kind, id: id, index: source.memberIndex(kind, id: id), from: from)]
        case .loadTheme(let name): [loadTheme(name)]
        case .addMark(let mark): [.marked(mark)]
        case .writeSnapshot(let request): snapshots.write(request)
        case .forceRefresh, .switchID, .setFault, .setPaused, .startScenario, .scenarioControl:
            [.message("tap: the devices are real; tokendash only watches their fetches")]
        case .copyToClipboard, .replay: []
        }
    }

    /// The followed ID with its last hour from the tap's ledger: its fetches, counters, churn and last token.
    private func member(_ kind: ProviderKind, index: Int) -> MemberSnapshot {
        let id = source.memberID(kind, index: index) ?? ""
        let history = source.marks?.history(kind, id: id, now: Date())
        return MemberSnapshot(id: id, token: history?.token, tapped: history)
    }
}
