import Foundation
import KeyTable
import UICore

/// What an overlay shows, made from the state: the lines of a panel, or a prompt's parts. The
/// overlay's renderer draws this value alone, so it cannot reach the panes, the fleet or the session.
struct OverlayView: Sendable {
    typealias Row = (text: String, role: StyleRole)

    enum Shape: Sendable {
        /// A box of rows. `trailer` gives way first on a short screen, so every row stays listed.
        case panel(title: String, rows: [Row], trailer: [Row])
        /// A one-line text field with its note (a refusal, in warning colours) and its keys.
        case prompt(title: String, label: String, text: String, note: String?, hint: String)
    }

    let shape: Shape?

    init(_ state: DashboardState) {
        shape = Self.shape(state)
    }

    /// Why a tap's help lacks the provider keys: a new user looks for refresh and faults there.
    private static func tapNote(_ state: DashboardState) -> [Row] {
        let trip = FooterRenderer.shortNoun(state.consumer.kind).lowercased()
        let vehicle = FooterRenderer.shortNoun(state.driver.kind).lowercased()
        return [
            ("", .overlay),
            ("Not here: refresh, new \(trip)/\(vehicle), faults, pause, scenarios.", .dim),
            ("They act on simulated SDKs and the embedded token server;", .dim),
            ("a tap's IDs are real devices, whose apps fetch their own tokens.", .dim),
        ]
    }

    /// A key's help in a tap's words where the simulated fleet's would mislead: before Enter
    /// there is no pane to focus, Tab turns to the other kind's table; trouble includes churn.
    private static func tapHelp(_ command: Command, _ state: DashboardState) -> String? {
        let trips = state.consumer.kind.spec.fleetNoun
        let vehicles = state.driver.kind.spec.fleetNoun
        switch command {
        case .focusNext: return "the other table (\(trips) / \(vehicles)) and its followed ID"
        case .nextTrouble: return "follow the next / previous ID churning or failing"
        default: return nil
        }
    }

    private static func shape(_ state: DashboardState) -> Shape? {
        let keys = state.keys
        switch state.overlay {
        case .none: return nil
        case .help:
            var rows = KeyBinding.paired(state.activeKeys).map { binding -> Row in
                let names = binding.keys.map(\.displayName).joined(separator: " ")
                let help = state.watchesRealDevices ? tapHelp(binding.command, state) ?? binding.help : binding.help
                return (names.fitted(10) + help, .overlay)
            }
            if state.watchesRealDevices { rows += tapNote(state) }
            return .panel(title: "Keys", rows: rows, trailer: [("", .overlay), ("any key closes this help", .dim)])
        case .faults(let selection, let scope):
            guard state.faultsAvailable else {
                return .panel(
                    title: "Faults",
                    rows: [
                        ("Fault injection needs the embedded token server;", .overlay),
                        ("this run uses --consumer-url/--driver-url.", .overlay),
                        ("", .overlay), ("\(keys.label(.menuClose)) closes", .dim),
                    ], trailer: [])
            }
            var rows: [Row] = [
                ("applies to: \(scope.rawValue)   (\(keys.label(.faultScope)): consumer / driver / both)", .overlay),
                ("", .overlay),
            ]
            for (i, choice) in Reducer.faultMenuRows.enumerated() {
                let text =
                    (Reducer.faultMenuDigit(i).map(String.init) ?? " ") + "  "
                    + (choice.map(state.faultLabel) ?? "off (clear faults)")
                rows.append((text, i == selection ? .selected : .overlay))
            }
            let active = state.activeFaults.isEmpty ? "none" : state.activeFaultsText
            rows += [
                ("", .overlay), ("active: \(active)", .overlay),
                ("\(ListMenu.hint(keys)), or 0-9; \(keys.label(.menuClose)) closes", .dim),
            ]
            return .panel(title: "Faults of the embedded server", rows: rows, trailer: [])
        case .input(let text, let note):
            let noun = state.focus.idNoun
            // In a fleet the ID names a member to follow; alone, it is the pane's new ID.
            if state[state.focus].memberCount > 1 {
                return .prompt(
                    title: "Follow \(noun)", label: noun, text: text, note: note,
                    hint: "Enter follows the member with this ID, Esc cancels, Ctrl-U clears")
            }
            return .prompt(
                title: "Switch \(noun)", label: "new \(noun)", text: text, note: note,
                hint: "Enter switches, Esc cancels, Ctrl-U clears; any text but / : ? , #")
        case .scenarios(let selection):
            let rows = ScenarioMenuRenderer.rows(state, selection: selection).map { Row(text: $0.0, role: $0.1) }
            return .panel(title: "Scenarios", rows: rows, trailer: [])
        case .filter(let text, let note):
            return .prompt(
                title: "Filter the \(state.focus.spec.fleetNoun) table", label: "ID contains", text: text, note: note,
                hint: "Enter applies, Esc clears the filter, Ctrl-U clears the line")
        case .mark(let text, let note):
            return .prompt(
                title: "Mark \((state.marks.last?.number ?? 0) + 1) at \(Format.clock(state.now, state.timeZone))",
                label: "note", text: text, note: note,
                hint: "Enter marks (the note may stay empty), Esc cancels, Ctrl-U clears")
        }
    }
}
