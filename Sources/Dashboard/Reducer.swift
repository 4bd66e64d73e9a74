import UICore
import Fleet
import FleetAuth
import Foundation

/// The one place state changes. Side effects come back as `Effect`s for the caller to run.
public enum Reducer {
    public static let idCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    public static let idLimit = 128

    public static func reduce(_ state: inout DashboardState, _ action: Action) -> [Effect] {
        switch action {
        case .event(let event):
            // Each pane once: two kinds share a slot, and `concerns` checks the kind itself.
            for kind in state.kinds where state[kind].concerns(event) { state[kind].apply(event) }
            return []
        case .tick(let now):
            state.now = now
            return []
        case .resized(let width, let height):
            state.screenWidth = width
            state.screenHeight = height
            return []
        case .themeLoaded(let theme):
            state.theme = theme
            return []
        case .faultsChanged(let faults):
            state.activeFaults = faults
            return []
        case .message(let text):
            state.message = text
            return []
        case .fleet(let summaries):
            state.fleet = summaries
            return []
        case .following(let kind, let index, let id):
            // An answer for a member the pane has moved on from (keys pressed in a row) is stale.
            guard state[kind].memberIndex == index else { return [] }
            state[kind].id = id
            state[kind].token = nil
            state[kind].log = []
            state[kind].history = []
            state[kind].counters = ProviderCounters()
            state[kind].fetchesPerMinute = [:]
            state[kind].lastError = nil
            return []
        case .key(let key):
            return handle(key, &state)
        }
    }

    private static func handle(_ key: Key, _ state: inout DashboardState) -> [Effect] {
        if key == .interrupt { return quit(&state) }
        if key == .resize { return [] }
        if case .click(let x, let y) = key {
            // A click on a pane focuses it (over an overlay, it does nothing).
            guard state.overlay == .none else { return [] }
            if let frame = Renderer.paneFrames(state, width: state.screenWidth, height: state.screenHeight)
                .first(where: { $0.contains(x: x, y: y) }) {
                state.focus = frame.kind
            }
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
        }
        guard let command = KeyBinding.command(for: key, fleet: state.isFleet) else { return [] }
        state.message = nil
        if let only = state.only, command == .focusNext || command.side.map({ $0 != only }) == true {
            state.message = "only the \(only.rawValue) runs (--only \(only.rawValue))"
            return []
        }
        switch command {
        case .focusNext:
            state.focus = state.focus.role == .consumer ? state.driver.kind : state.consumer.kind
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
            state.overlay = .faults(selection: 0, scope: FaultScope(state.focus))
        case .copyToken:
            guard let token = state[state.focus].token else {
                state.message = "no token to copy yet"
                return []
            }
            // A token is a credential: only a revealed one leaves the screen whole.
            let text = state.reveal ? token.token : TokenRedactor.redact(token.token)
            state.message = state.reveal
                ? "copied the \(state.focus.idNoun)'s token (#\(token.fingerprint)) to the clipboard, whole"
                : "copied the redacted token (#\(token.fingerprint)); press x to reveal, then y, to copy it whole"
            return [.copyToClipboard(text)]
        case .zoomIn, .zoomOut:
            let levels = Timeline.zoomLevels
            let at = levels.firstIndex(of: state.timelineMinutes) ?? 1
            let next = command == .zoomIn ? max(0, at - 1) : min(levels.count - 1, at + 1)
            state.timelineMinutes = levels[next]
        case .clearFaults:
            guard state.faultsAvailable else {
                state.message = "fault injection needs the embedded token server"
                return []
            }
            return [.setFault(nil, .both)]
        case .toggleReveal:
            state.reveal.toggle()
        case .togglePause:
            state.paused.toggle()
            return [.setPaused(state.paused)]
        case .nextTheme:
            let names = state.themeNames
            let next = names.isEmpty ? state.themeName : names[((names.firstIndex(of: state.themeName) ?? -1) + 1) % names.count]
            return [.loadTheme(next)]
        case .help:
            state.overlay = .help
        case .nextFleetMember, .previousFleetMember:
            let pane = state[state.focus]
            guard pane.memberCount > 1 else { return [] }
            let step = command == .nextFleetMember ? 1 : pane.memberCount - 1
            // The state owns which member is followed: it moves now, so every press counts even
            // before the first answer is back.
            let index = (pane.memberIndex + step) % pane.memberCount
            state[state.focus].memberIndex = index
            return [.follow(state.focus, index: index)]
        case .quit:
            return quit(&state)
        }
        return []
    }

    private static func quit(_ state: inout DashboardState) -> [Effect] {
        state.quitting = true
        return [.quit]
    }

    private static func switchID(_ kind: ProviderKind, to id: String, _ state: inout DashboardState) -> [Effect] {
        state.focus = kind
        return [.switchID(kind, id, member: state[kind].memberIndex)]
    }

    /// The rows of the fault menu: each fault, then "off".
    public static var faultMenuRows: [FaultChoice?] { FaultChoice.allCases.map(Optional.some) + [nil] }

    private static func handleFaultMenu(_ key: Key, selection: Int, scope: FaultScope, _ state: inout DashboardState) -> [Effect] {
        let rows = faultMenuRows
        switch key {
        case .escape, .character("q"), .character("f"):
            state.overlay = .none
        case .up, .character("k"):
            state.overlay = .faults(selection: (selection + rows.count - 1) % rows.count, scope: scope)
        case .down, .character("j"):
            state.overlay = .faults(selection: (selection + 1) % rows.count, scope: scope)
        case .tab:
            state.overlay = .faults(selection: selection, scope: scope.next)
        case .enter:
            state.overlay = .none
            guard state.faultsAvailable else { return [] }
            return [.setFault(rows[selection], scope)]
        case .character(let c):
            if let n = c.wholeNumberValue, (1...rows.count).contains(n) {
                state.overlay = .none
                guard state.faultsAvailable else { return [] }
                return [.setFault(rows[n - 1], scope)]
            }
        default: break
        }
        return []
    }

    private static func handleInput(_ key: Key, text: String, _ state: inout DashboardState) -> [Effect] {
        switch key {
        case .escape:
            state.overlay = .none
        case .backspace:
            state.overlay = .input(String(text.dropLast()))
        case .character("\u{15}"): // Ctrl-U, as in a shell: clear the line.
            state.overlay = .input("")
        case .enter:
            state.overlay = .none
            guard !text.isEmpty, text != state[state.focus].id else {
                state.message = "\(state.focus.idNoun) unchanged (\(state[state.focus].id))"
                return []
            }
            return [.switchID(state.focus, text, member: state[state.focus].memberIndex)]
        case .character(let c):
            if text.count >= idLimit {
                state.overlay = .input(text, note: "at most \(idLimit) characters: \"\(c.printable)\" not added")
            } else if idCharacters.contains(c) {
                state.overlay = .input(text + String(c), note: text.count + 1 == idLimit ? "\(idLimit) characters: the limit" : nil)
            } else {
                // Fleet Engine takes IDs of letters, digits, dot, underscore and hyphen; anything
                // else would be refused by the backend, so it is refused here, with the reason.
                state.overlay = .input(text, note: "\"\(c.printable)\" is not allowed in an ID (letters, digits, . _ - only)")
            }
        default: break
        }
        return []
    }
}
