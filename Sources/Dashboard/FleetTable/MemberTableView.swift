import Fleet
import Foundation
import KeyTable
import ProviderVocabulary

/// What the fleet table draws: the focused kind's table under the viewer's query, the kind's
/// counts, the followed member and the table's keys. Its renderer takes this and nothing else,
/// so it cannot reach the panes or another kind's fleet.
struct MemberTableView {
    let kind: ProviderKind
    let table: MemberTable
    /// The fleet's size: the SDKs run, or the IDs seen by a tap.
    let fleetSize: Int
    /// Whether the rows are a tap's real devices, with the tap's columns.
    let tapped: Bool
    /// The member the pane follows, by index.
    let followed: Int
    let summary: FleetSummary?
    let now: Date
    /// The keys of the table shown on its lower border.
    let keys: [KeyBinding]

    init(_ state: DashboardState) {
        kind = state.focus
        table = state.table(kind)
        fleetSize = state[kind].fleetSize
        tapped = state[kind].seenMembers != nil
        // A tap follows no ID until Enter: no row is marked before.
        followed = state.watchesRealDevices && !state[kind].following ? -1 : state[kind].memberIndex
        summary = state.fleet[kind]
        now = state.now
        keys = state.activeKeys.filter(\.inTable)
    }
}
