import Faults
import Fleet
import FleetTables
import Foundation
import KeyTable
import ProviderVocabulary
import UICore

/// The one place state changes. Side effects come back as `Effect`s for the caller to run.
public enum Reducer {
    /// Fleet Engine's own limit on an ID (`FleetEngineID`), in Unicode code points.
    public static let idLimit = FleetEngineID.maximumLength

    /// `clicks` is the map of the frame last drawn, which places the viewer's own clicks.
    public static func reduce(_ state: inout DashboardState, _ action: Action, clicks: ClickMap? = nil) -> [Effect] {
        // Every action is routed here, so a new one must be placed.
        switch action {
        case .event, .tick, .faultsChanged, .rampPace, .fleetTables, .scenario, .sdksPaused, .faultLatency, .marked:
            happened(action, &state)
            return []
        case .fleet:
            // The tables follow the fleet's rows, each second, made under the viewer's filters.
            happened(action, &state)
            return state.isFleet ? [.queryTables(state.tableFilters)] : []
        case .resized(let width, let height):
            (state.screenWidth, state.screenHeight) = (width, height)
            return []
        case .themeLoaded(let theme):
            state.theme = theme
            return []
        case .message(let text):
            state.message = text
            return []
        case .following, .memberFound:
            return answered(action, &state)
        case .key(let key):
            guard state.replay != nil else { return handle(key, clicks: clicks, &state) }
            // A replay's viewer who changes what they look at stops following the recorded look.
            let before = state.look
            let effects = handle(key, clicks: clicks, &state)
            if state.viewer.followsRecording, !state.look.sameView(as: before) {
                state.viewer.followsRecording = false
                state.message =
                    state.message ?? "your own view from now: the recording's focus and overlays no longer move it"
            }
            return effects
        case .recorded(let inner):
            return recorded(inner, &state)
        case .replayStatus(let status):
            state.replay = status
            return []
        case .restore(let rebuilt):
            restore(rebuilt, &state)
            return []
        }
    }

    /// What happened to the session: provider events, time, the server's faults, the fleet's
    /// aggregate, the scenario, marks.
    private static func happened(_ action: Action, _ state: inout DashboardState) {
        switch action {
        case .event(let event):
            // Each pane once: two kinds share a slot, and `concerns` checks the kind itself.
            for kind in state.kinds where state[kind].concerns(event) { state[kind].apply(event) }
            if state.frozen != nil { state.eventsWhileFrozen += 1 }
        case .tick(let now):
            state.now = now
        case .faultsChanged(let faults):
            state.activeFaults = faults
        case .fleet(let summaries):
            state.fleet = summaries
            for kind in state.kinds where state[kind].seenMembers != nil {
                state[kind].seenMembers = summaries[kind]?.providers ?? state[kind].seenMembers
            }
        case .rampPace(let pace):
            state.session.rampPace = pace
        case .fleetTables(let tables):
            for kind in state.kinds {
                // A table made under a filter since changed would list the wrong members.
                guard let table = tables[kind], table.filter == state.table(kind).filter else { continue }
                state.session.fleetTables[kind] = table
            }
        case .scenario(let banner):
            state.scenario = banner
        case .sdksPaused(let paused):
            state.paused = paused
        case .faultLatency(let milliseconds):
            state.faultLatencyMilliseconds = milliseconds
        case .marked(let mark):
            marked(mark, &state)
        default:
            break
        }
    }

    /// The answers to a pane's fleet questions (`Effect.follow`, `Effect.findMember`).
    private static func answered(_ action: Action, _ state: inout DashboardState) -> [Effect] {
        switch action {
        case .following(let kind, let index, let member):
            // An answer for a member the pane has moved on from (keys pressed in a row) is stale.
            guard state[kind].memberIndex == index else { return [] }
            let seen = state[kind].seenMembers
            state[kind] = followed(member, index: index, count: state[kind].memberCount, kind: kind, now: state.now)
            state[kind].seenMembers = seen
            if let history = member.tapped { state[kind].recall(history, now: state.now) }
        case .memberFound(let kind, let id, let index, let from):
            // The user has followed another member since asking: that choice stands.
            guard state[kind].memberIndex == from else { return [] }
            guard let index else {
                state.message = "\(kind.idNoun) \(id) is not in this fleet of \(state[kind].fleetSize)"
                return []
            }
            return follow(kind, index, &state)
        default:
            break
        }
        return []
    }

    /// A seek: the session as the recording had it there, and the recorded look with it.
    private static func restore(_ rebuilt: DashboardState, _ state: inout DashboardState) {
        let viewerMarks = state.marks
        state.session = rebuilt.session
        state.recorded = rebuilt.recorded
        // Before the first recorded action, the recorded look is the recording's first.
        if state.viewer.followsRecording { state.viewer.look = (rebuilt.recorded ?? rebuilt.viewer).look }
        // Marks the viewer made while watching are theirs, not the recording's: kept.
        let recordedNumbers = Set(rebuilt.marks.map(\.number))
        state.marks = (rebuilt.marks + viewerMarks.filter { !recordedNumbers.contains($0.number) }).sorted {
            $0.at < $1.at
        }
    }

    /// A recorded action in a replay. It changes the session as it did live (a recorded p paused
    /// the SDKs, not the replay), and acts on the recorded person's viewer, not this one: a
    /// recorded Tab moves the recorded focus, a recorded q ended the recorded session, a recorded
    /// resize was the recorded terminal's. The screen shows the recorded look while the viewer
    /// follows it. Its effects were carried out live (their outcomes are recorded); only the
    /// table query is asked again, of the replay's own fleet table, while the viewer follows.
    private static func recorded(_ inner: Action, _ state: inout DashboardState) -> [Effect] {
        // A recorded freeze was the recorded person's way of looking, not something that happened:
        // the replay's viewer freezes (or not) with their own z. Holding a second session is waste.
        let recordedViewer = state.recorded ?? state.viewer.forRecording(focus: state.consumer.kind)
        if case .key(let key) = inner, recordedViewer.look.overlay == .none,
            recordedViewer.display.keys.command(for: key, fleet: state.isFleet, scenarios: state.scenarioKeys)
                == .freeze
        {
            return []
        }
        // The viewers change places for the action, not the session: a copy of the session
        // would be copied again on write, at every recorded event of a seek's fold.
        // A recorded answer is for the member the recorded person followed then. A seek applies a
        // run of recorded actions before the tables its ticks ask for come back, so the recorded
        // key that chose the member may have found no rows here: the answer places it itself.
        if case .following(let kind, let index, _) = inner { state[kind].memberIndex = index }
        let ownViewer = state.viewer
        state.viewer = recordedViewer
        state.recorded = nil
        let effects = reduce(&state, inner)
        state.recorded = state.viewer
        state.viewer = ownViewer
        if state.viewer.frozen != nil, case .event = inner { state.viewer.eventsWhileFrozen += 1 }
        guard state.viewer.followsRecording, let recorded = state.recorded else { return [] }
        state.viewer.look = recorded.look
        return effects.filter { if case .queryTables = $0 { true } else { false } }
    }

    private static func handle(_ key: Key, clicks: ClickMap?, _ state: inout DashboardState) -> [Effect] {
        if key == .interrupt { return quit(&state) }
        if key == .resize { return [] }
        if case .click(let x, let y) = key {
            click(x: x, y: y, clicks: clicks, &state)
            return []
        }
        switch state.overlay {
        case .none: break
        case .help:
            state.overlay = .none
            return []
        case .faults(let selection, let scope):
            return handleFaultMenu(key, selection: selection, scope: scope, &state)
        case .input(let text, _):
            return handleInput(key, text: text, &state)
        case .filter(let text, _):
            return handleFilter(key, text: text, &state)
        case .mark(let text, _):
            return handleMarkNote(key, text: text, &state)
        case .scenarios(let selection):
            return handleScenarioMenu(key, selection: selection, &state)
        }
        guard let command = state.command(for: key) else { return [] }
        state.message = nil
        // A tap's recording answers following an ID (its marks keep each ID's last hour).
        if state.replay != nil, command.isLiveOnly(replayFollows: state.watchesRealDevices) {
            state.message = "\(key.displayName) acts on the live providers: not in a replay"
            return []
        }
        if let only = state.only, command == .focusNext || command.side.map({ $0 != only }) == true {
            state.message = "only the \(only.rawValue) runs (--only \(only.rawValue))"
            return []
        }
        // Every command is routed here, so a new one must be placed in a group.
        switch command {
        case .focusNext, .toggleReveal, .zoomIn, .zoomOut, .nextTheme, .help, .copyToken, .mark, .freeze, .snapshot,
            .quit:
            return viewCommand(command, &state)
        case .refreshFocused, .refreshBoth, .newTrip, .newVehicle, .typeID, .faultMenu, .clearFaults, .togglePause,
            .scenarioMenu, .scenarioStep, .scenarioPause:
            return liveCommand(command, &state)
        case .nextFleetMember, .previousFleetMember, .nextTrouble, .previousTrouble, .selectUp, .selectDown,
            .followSelected, .filterTable:
            return fleetCommand(command, &state)
        case .replayPause, .replayStep, .replayBack, .replayForward, .replayStart, .replayEnd, .replaySpeed:
            guard state.replay != nil, let control = command.replayControl else { return [] }
            return [.replay(control)]
        case .menuUp, .menuDown, .menuChoose, .menuClose, .faultScope, .latencyDown, .latencyUp:
            // A list menu's keys are read from `KeyMap.menuBindings`, only while one is open.
            return []
        }
    }

    static func quit(_ state: inout DashboardState) -> [Effect] {
        state.quitting = true
        return []
    }

    /// The pane of `kind` follows member `index` from now on; its details are asked for.
    static func follow(_ kind: ProviderKind, _ index: Int, _ state: inout DashboardState) -> [Effect] {
        state[kind].memberIndex = index
        return [.follow(kind, index: index)]
    }

    /// The next (or previous) member in trouble after the followed one, in the table's order.
    static func followTrouble(forward: Bool, _ state: inout DashboardState) -> [Effect] {
        let kind = state.focus
        let table = state.table(kind)
        let trouble = table.rows.filter(\.isTrouble)
        guard !trouble.isEmpty else {
            let filtered = table.filter.isEmpty ? "" : " matching \"\(table.filter)\""
            state.message = "no \(kind.idNoun) in trouble\(filtered)"
            return []
        }
        // A tap's pane follows no ID until Enter: `n` then lands on the first in trouble, not the one after row 0.
        let current = state[kind].following ? trouble.firstIndex { $0.index == state[kind].memberIndex } : nil
        let next =
            forward
            ? current.map { ($0 + 1) % trouble.count } ?? 0
            : current.map { ($0 + trouble.count - 1) % trouble.count } ?? trouble.count - 1
        state.tableQueries[kind, default: TableQuery()].selected = trouble[next].index
        return follow(kind, trouble[next].index, &state)
    }

    /// A fresh pane for a newly followed member, showing what its provider holds now: the cached
    /// token (and its span on the timeline), the last failure, a fetch in flight.
    private static func followed(_ member: MemberSnapshot, index: Int, count: Int, kind: ProviderKind, now: Date)
        -> PaneState
    {
        var pane = PaneState(kind: kind, id: member.id)
        pane.memberIndex = index
        pane.memberCount = count
        pane.token = member.token
        pane.lastError = member.lastError
        pane.fetching = member.fetching
        if let token = member.token {
            pane.timeline.record(
                Timeline.Span(
                    from: token.jwt.issuedAt ?? token.receivedAt, to: token.expiresAt,
                    refreshAt: token.refreshAt, fingerprint: token.fingerprint), at: now)
            pane.log = [
                LogEntry(
                    time: now, event: .cachedToken, detail: "expires", latency: nil, level: .info,
                    at: token.expiresAt, fingerprint: token.fingerprint)
            ]
        }
        return pane
    }

    static func switchID(_ kind: ProviderKind, to id: String, _ state: inout DashboardState) -> [Effect] {
        state.focus = kind
        return [.switchID(kind, id, member: state[kind].memberIndex)]
    }

    /// The rows of the fault menu: each fault, then "off".
    public static var faultMenuRows: [Fault?] { Fault.allCases.map(Optional.some) + [nil] }

    /// The digit that picks a fault-menu row: 1-9 for the first nine faults, 0 for "off" (the
    /// last row); the faults after the ninth are chosen with the arrows.
    public static func faultMenuDigit(_ row: Int) -> Int? {
        if row == faultMenuRows.count - 1 { return 0 }
        return row < 9 ? row + 1 : nil
    }

    /// Typing in a prompt (an ID, a filter): the new text and note for an editing key, nil for any other.
    private static func edit(_ key: Key, _ text: String) -> (text: String, note: String?)? {
        switch key {
        case .backspace:
            return (String(text.dropLast()), nil)
        case .character("\u{15}"):  // Ctrl-U, as in a shell: clear the line.
            return ("", nil)
        case .character(let c):
            // Fleet Engine's ID rule (`FleetEngineID`): anything but / : ? , # and at most 64
            // code points; control characters are keys, not text.
            if c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return (text, "\"\(c.printable)\" is a control key, not part of an ID")
            }
            if !FleetEngineID.allows(c) {
                return (
                    text,
                    "\"\(c.printable)\" is not allowed in a Fleet Engine ID (none of \(FleetEngineID.forbiddenList))"
                )
            }
            let length = text.unicodeScalars.count + c.unicodeScalars.count
            if length > idLimit { return (text, "at most \(idLimit) characters: \"\(c.printable)\" not added") }
            return (text + String(c), length == idLimit ? "\(idLimit) characters: the limit" : nil)
        default:
            return nil
        }
    }

    private static func handleInput(_ key: Key, text: String, _ state: inout DashboardState) -> [Effect] {
        if let (text, note) = edit(key, text) {
            state.overlay = .input(text, note: note)
            return []
        }
        switch key {
        case .escape:
            state.overlay = .none
        case .enter:
            state.overlay = .none
            let pane = state[state.focus]
            // Fleet Engine wants IDs in NFC; a terminal may send an accent as a combining mark.
            let text = text.precomposedStringWithCanonicalMapping
            guard !text.isEmpty, text != pane.id else {
                state.message =
                    pane.memberCount > 1
                    ? "following \(pane.id) already" : "\(state.focus.idNoun) unchanged (\(pane.id))"
                return []
            }
            // In a fleet the ID names a member to follow; alone, it is the pane's new ID.
            if pane.memberCount > 1 { return [.findMember(state.focus, id: text, from: pane.memberIndex)] }
            return [.switchID(state.focus, text, member: pane.memberIndex)]
        default: break
        }
        return []
    }

    private static func handleFilter(_ key: Key, text: String, _ state: inout DashboardState) -> [Effect] {
        if let (text, note) = edit(key, text) {
            state.overlay = .filter(text, note: note)
            return []
        }
        switch key {
        case .escape:
            state.overlay = .none
            return applyFilter("", &state)
        case .enter:
            state.overlay = .none
            return applyFilter(text, &state)
        default:
            return []
        }
    }

    /// The focused kind's table is cut to `filter`; the tables are asked for under it at once.
    private static func applyFilter(_ filter: String, _ state: inout DashboardState) -> [Effect] {
        let kind = state.focus
        guard state.table(kind).filter != filter else { return [] }
        state.tableQueries[kind] = TableQuery(filter: filter)
        return [.queryTables(state.tableFilters)]
    }
}
