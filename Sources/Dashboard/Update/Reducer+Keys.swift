import Fleet
import Foundation
import KeyTable
import ProviderVocabulary
import Redaction
import UICore

/// The main table's commands, by group: how one looks, what acts on the live providers, and
/// moving through a fleet. `Reducer.handle` routes each command to one of them.
extension Reducer {
    /// Commands that change only how the session is looked at (and quitting).
    static func viewCommand(_ command: Command, _ state: inout DashboardState) -> [Effect] {
        switch command {
        case .focusNext:
            state.focus = state.focus.role == .consumer ? state.driver.kind : state.consumer.kind
        case .toggleReveal:
            state.reveal.toggle()
        case .zoomIn, .zoomOut:
            let levels = Timeline.zoomLevels
            let at = levels.firstIndex(of: state.timelineMinutes) ?? 1
            let next = command == .zoomIn ? max(0, at - 1) : min(levels.count - 1, at + 1)
            state.timelineMinutes = levels[next]
        case .nextTheme:
            let names = state.themeNames
            let next =
                names.isEmpty
                ? state.themeName : names[((names.firstIndex(of: state.themeName) ?? -1) + 1) % names.count]
            return [.loadTheme(next)]
        case .help:
            state.overlay = .help
        case .copyToken:
            return copyToken(&state)
        case .mark:
            return startMark(&state)
        case .freeze:
            toggleFreeze(&state)
        case .snapshot:
            return snapshot(state)
        case .quit:
            return quit(&state)
        default:
            break
        }
        return []
    }

    /// Commands that act on the providers, the embedded server or a scenario.
    static func liveCommand(_ command: Command, _ state: inout DashboardState) -> [Effect] {
        switch command {
        case .refreshFocused:
            return [.forceRefresh(state.focus, member: state[state.focus].memberIndex)]
        case .refreshBoth:
            return state.kinds.filter { state.only == nil || $0.role == state.only }
                .map { .forceRefresh($0, member: state[$0].memberIndex) }
        case .newTrip:
            return switchID(state.consumer.kind, to: IDSequence.next(after: state.consumer.id), &state)
        case .newVehicle:
            return switchID(state.driver.kind, to: IDSequence.next(after: state.driver.id), &state)
        case .typeID:
            state.overlay = .input("")
        case .faultMenu:
            state.overlay = .faults(selection: 0, scope: RoleScope(state.focus))
        case .clearFaults:
            guard state.faultsAvailable else {
                state.message = "fault injection needs the embedded token server"
                return []
            }
            return [.setFault(nil, .both)]
        case .togglePause:
            state.paused.toggle()
            return [.setPaused(state.paused)]
        case .scenarioMenu:
            state.overlay = .scenarios(selection: 0)
        case .scenarioStep:
            return [.scenarioControl(.advance)]
        case .scenarioPause:
            return [.scenarioControl(.togglePause)]
        default:
            break
        }
        return []
    }

    /// Commands that move through a fleet: the member a pane follows, the table's selection and filter.
    static func fleetCommand(_ command: Command, _ state: inout DashboardState) -> [Effect] {
        switch command {
        case .nextFleetMember, .previousFleetMember:
            let pane = state[state.focus]
            // Through the members there are: a tap's seen IDs, not the table's capacity.
            let size = pane.fleetSize
            guard size > 1 else { return [] }
            let step = command == .nextFleetMember ? 1 : size - 1
            // The state owns which member is followed: it moves now, so every press counts even
            // before the first answer is back.
            return follow(state.focus, (pane.memberIndex + step) % size, &state)
        case .nextTrouble, .previousTrouble:
            return followTrouble(forward: command == .nextTrouble, &state)
        case .selectUp, .selectDown:
            let table = state.table(state.focus)
            let rows = table.rows
            guard let at = table.selectedRow(in: rows) else { return [] }
            let to = command == .selectDown ? min(rows.count - 1, at + 1) : max(0, at - 1)
            state.tableQueries[state.focus, default: TableQuery()].selected = rows[to].index
        case .followSelected:
            let table = state.table(state.focus)
            let rows = table.rows
            guard let at = table.selectedRow(in: rows) else {
                state.message = "no \(state.focus.idNoun) in the table to follow"
                return []
            }
            return follow(state.focus, rows[at].index, &state)
        case .filterTable:
            state.overlay = .filter(state.table(state.focus).filter)
        default:
            break
        }
        return []
    }

    /// A click on a pane focuses it; on a member row of the fleet table, selects it (Enter then
    /// follows it). Over an overlay, it does nothing. It is placed with `clicks`, the map of the
    /// frame last drawn, when that frame had this screen's size; else (a recorded click in a
    /// replay, acting on the recorded viewer's screen) with the map of the screen as drawn now:
    /// the frozen picture, while frozen.
    static func click(x: Int, y: Int, clicks: ClickMap?, _ state: inout DashboardState) {
        guard state.overlay == .none else { return }
        let map =
            clicks.flatMap { $0.width == state.screenWidth && $0.height == state.screenHeight ? $0 : nil }
            ?? ClickMap.of(state.shown, width: state.screenWidth, height: state.screenHeight)
        switch map.target(x: x, y: y) {
        case .pane(let kind):
            state.focus = kind
        case .member(let kind, let index):
            state.tableQueries[kind, default: TableQuery()].selected = index
        case nil:
            break
        }
    }

    /// `c`: the focused token to the clipboard, redacted unless revealed.
    static func copyToken(_ state: inout DashboardState) -> [Effect] {
        guard let token = state[state.focus].token else {
            state.message = "no token to copy yet"
            return []
        }
        // A token is a credential: only a revealed one leaves the screen whole.
        let text = state.reveal ? token.token : TokenRedactor.redact(token.token)
        state.message =
            state.reveal
            ? "copied the \(state.focus.idNoun)'s token (#\(token.fingerprint)) to the clipboard, whole"
            : "copied the redacted token (#\(token.fingerprint)); press \(state.keys.label(.toggleReveal)) to reveal, then \(state.keys.label(.copyToken)), to copy it whole"
        return [.copyToClipboard(text)]
    }

    /// The fault menu: a list menu over the faults and "off", with Tab for the scope, < > for the
    /// latency and a digit to choose at once; its own key closes it too.
    static func handleFaultMenu(_ key: Key, selection: Int, scope: RoleScope, _ state: inout DashboardState) -> [Effect]
    {
        let rows = faultMenuRows
        let command = state.keys.menuCommand(for: key)
        func choose(_ row: Int) -> [Effect] {
            state.overlay = .none
            guard state.faultsAvailable else { return [] }
            return [.setFault(rows[row], scope, latencyMilliseconds: state.faultLatencyMilliseconds)]
        }
        switch ListMenu.outcome(command, selection: selection, count: rows.count) {
        case .highlight(let row): state.overlay = .faults(selection: row, scope: scope)
        case .choose(let row): return choose(row)
        case .close: state.overlay = .none
        case .other:
            switch command {
            case .faultScope?:
                state.overlay = .faults(selection: selection, scope: scope.next)
            case .latencyDown?, .latencyUp?:
                // Half a second a step, between half a second and 20 s.
                let step = command == .latencyUp ? 500 : -500
                state.faultLatencyMilliseconds = min(20_000, max(500, state.faultLatencyMilliseconds + step))
            default:
                if state.command(for: key) == .faultMenu {
                    state.overlay = .none
                } else if case .character(let c) = key, let n = c.wholeNumberValue,
                    let row = rows.indices.first(where: { faultMenuDigit($0) == n })
                {
                    return choose(row)
                }
            }
        }
        return []
    }
}
