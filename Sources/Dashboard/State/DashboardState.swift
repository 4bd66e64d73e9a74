import Faults
import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import UICore

/// The whole dashboard as a value: what happened (`session`) and how one person looks at it
/// (`viewer`). The reducer changes it, `render` draws it. Its members' members read and write
/// through it (`state.focus` is `state.viewer.look.focus`, `state.now` is `state.session.now`):
/// the names are unique across the four, and which part a name lives in is decided once, there.
@dynamicMemberLookup
public struct DashboardState: Equatable, Sendable {
    public var session: SessionState
    public var viewer: ViewerState
    /// In a replay, the recorded person's viewer: recorded keys, resizes and notices act on it
    /// (an `i` then `x` there is typing, not a key), and the screen follows its look until this
    /// viewer takes over (`ViewerState.followsRecording`). nil when live.
    public var recorded: ViewerState?

    public init(
        consumerID: String, driverID: String, now: Date, backend: String, faultsAvailable: Bool,
        theme: Theme = Theme(name: "default", styles: [:]), themeNames: [String] = ["default"],
        refreshMargin: TimeInterval = 300,
        trips: Int = 1, vehicles: Int = 1, solution: ProviderKind.Solution = .onDemand, only: ProviderKind.Role? = nil
    ) {
        var consumer = PaneState(kind: solution.consumerKind, id: consumerID)
        var driver = PaneState(kind: solution.driverKind, id: driverID)
        consumer.memberCount = trips
        driver.memberCount = vehicles
        session = SessionState(
            consumer: consumer, driver: driver, now: now, backend: backend, faultsAvailable: faultsAvailable,
            refreshMargin: refreshMargin)
        viewer = ViewerState(look: Look(focus: solution.consumerKind), theme: theme, themeNames: themeNames)
        runOnly(only)
    }

    /// Both kinds' members are learnt from the events (`tap`'s real devices): the screen counts
    /// the IDs seen, none yet.
    public mutating func learnMembers() {
        session.consumer.seenMembers = 0
        session.driver.seenMembers = 0
    }

    /// `--only`: runs one side alone, focused; nil runs both.
    public mutating func runOnly(_ role: ProviderKind.Role?) {
        session.only = role
        if let role {
            viewer.look.focus = session[role == .consumer ? session.consumer.kind : session.driver.kind].kind
        }
    }

    public init(session: SessionState, viewer: ViewerState) {
        self.session = session
        self.viewer = viewer
    }

    public subscript<T>(dynamicMember path: WritableKeyPath<SessionState, T>) -> T {
        get { session[keyPath: path] }
        set { session[keyPath: path] = newValue }
    }

    public subscript<T>(dynamicMember path: WritableKeyPath<ViewerState, T>) -> T {
        get { viewer[keyPath: path] }
        set { viewer[keyPath: path] = newValue }
    }

    public subscript<T>(dynamicMember path: WritableKeyPath<Look, T>) -> T {
        get { viewer.look[keyPath: path] }
        set { viewer.look[keyPath: path] = newValue }
    }

    public subscript<T>(dynamicMember path: WritableKeyPath<Display, T>) -> T {
        get { viewer.display[keyPath: path] }
        set { viewer.display[keyPath: path] = newValue }
    }

    public subscript<T>(dynamicMember path: KeyPath<SessionState, T>) -> T { session[keyPath: path] }
    public subscript<T>(dynamicMember path: KeyPath<Display, T>) -> T { viewer.display[keyPath: path] }
    public subscript<T>(dynamicMember path: KeyPath<ViewerState, T>) -> T { viewer[keyPath: path] }
    public subscript<T>(dynamicMember path: KeyPath<Look, T>) -> T { viewer.look[keyPath: path] }

    /// The pane on `kind`'s side.
    public subscript(kind: ProviderKind) -> PaneState {
        get { session[kind] }
        set { session[kind] = newValue }
    }

    /// What the screen shows: the frozen session under this viewer while frozen, else this state.
    public var shown: DashboardState {
        guard let frozen = viewer.frozen else { return self }
        var shown = self
        shown.session = frozen
        return shown
    }

    /// The header's notice while frozen: when, and how much has happened since.
    public var freezeBadge: String? {
        guard let frozen = viewer.frozen else { return nil }
        let count = viewer.eventsWhileFrozen
        return
            "❄ FROZEN at \(Format.clock(frozen.now, viewer.display.timeZone)) · \(count) event\(count == 1 ? "" : "s") since (\(viewer.display.keys.label(.freeze)) resumes)"
    }

    /// Each kind's table as drawn and acted on: the session's latest rows under the viewer's query.
    public var tables: [ProviderKind: MemberTable] {
        var result: [ProviderKind: MemberTable] = [:]
        for kind in session.kinds where session.fleetTables[kind] != nil || viewer.look.tableQueries[kind] != nil {
            result[kind] = table(kind)
        }
        return result
    }

    /// Each kind's table filter, for `Effect.queryTables`: the kinds filtered, nothing for the rest.
    public var tableFilters: [ProviderKind: String] {
        viewer.look.tableQueries.compactMapValues { $0.filter.isEmpty ? nil : $0.filter }
    }

    public func table(_ kind: ProviderKind) -> MemberTable {
        MemberTable(
            latest: session.fleetTables[kind] ?? FleetTable(), query: viewer.look.tableQueries[kind] ?? TableQuery())
    }

    /// `consumer=HTTP 500, driver=…`: the active faults as the header and the fault menu show them.
    public var activeFaultsText: String {
        session.activeFaults.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue)=\(faultLabel($0.value))"
        }.joined(separator: ", ")
    }

    /// A fault's label with the menu's keys for the latency: the one name the menu and header show.
    public func faultLabel(_ fault: Fault) -> String {
        fault.label(
            latencyMilliseconds: session.faultLatencyMilliseconds,
            adjustHint: "\(viewer.display.keys.label(.latencyDown)) \(viewer.display.keys.label(.latencyUp)) adjust")
    }
}
