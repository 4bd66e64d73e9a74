import Foundation
import KeyTable
import UICore

/// Help, the fault menu and the ID prompt, drawn over the panes.
struct OverlayRenderer {
    let state: DashboardState

    func draw(_ canvas: inout Canvas) {
        switch state.overlay {
        case .none: return
        case .help:
            let rows = KeyBinding.paired(state.activeKeys).map { binding in
                let keys = binding.keys.map(\.displayName).joined(separator: " ")
                return (keys.fitted(10) + binding.help, StyleRole.overlay)
            }
            // The closing hint gives way first on a short screen: every key stays listed.
            let closing: [(String, StyleRole)] =
                rows.count + 4 <= canvas.height - 2 ? [("", .overlay), ("any key closes this help", .dim)] : []
            panel(&canvas, title: "Keys", rows: rows + closing)
        case .faults(let selection, let scope):
            let keys = state.keys
            guard state.faultsAvailable else {
                panel(
                    &canvas, title: "Faults",
                    rows: [
                        ("Fault injection needs the embedded token server;", .overlay),
                        ("this run uses --consumer-url/--driver-url.", .overlay),
                        ("", .overlay), ("\(keys.label(.menuClose)) closes", .dim),
                    ])
                return
            }
            var rows: [(String, StyleRole)] = [
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
            panel(&canvas, title: "Faults of the embedded server", rows: rows)
        case .input(let text, let note):
            let noun = state.focus.idNoun
            // In a fleet the ID names a member to follow; alone, it is the pane's new ID.
            if state[state.focus].memberCount > 1 {
                prompt(
                    &canvas, title: "Follow \(noun)", label: noun, text: text, note: note,
                    hint: "Enter follows the member with this ID, Esc cancels, Ctrl-U clears")
            } else {
                prompt(
                    &canvas, title: "Switch \(noun)", label: "new \(noun)", text: text, note: note,
                    hint: "Enter switches, Esc cancels, Ctrl-U clears; any text but / : ? , #")
            }
        case .scenarios(let selection):
            panel(&canvas, title: "Scenarios", rows: ScenarioMenuRenderer.rows(state, selection: selection))
        case .filter(let text, let note):
            prompt(
                &canvas, title: "Filter the \(state.focus.spec.fleetNoun) table", label: "ID contains", text: text,
                note: note,
                hint: "Enter applies, Esc clears the filter, Ctrl-U clears the line")
        case .mark(let text, let note):
            prompt(
                &canvas,
                title: "Mark \((state.marks.last?.number ?? 0) + 1) at \(Format.clock(state.now, state.timeZone))",
                label: "note", text: text, note: note,
                hint: "Enter marks (the note may stay empty), Esc cancels, Ctrl-U clears")
        }
    }

    private func prompt(_ canvas: inout Canvas, title: String, label: String, text: String, note: String?, hint: String)
    {
        // A long ID shows its end, where the typing is.
        let room = max(8, min(canvas.width - 4, 80) - 8 - label.count - 1)
        let shown = text.count > room ? "…" + text.suffix(room - 1) : text
        panel(&canvas, title: title, rows: [("\(label): \(shown)█", .overlay), (note ?? "", .warning), (hint, .dim)])
    }

    private func panel(_ canvas: inout Canvas, title: String, rows: [(String, StyleRole)]) {
        let width = min(canvas.width - 4, max(44, (rows.map(\.0.count).max() ?? 0) + 6))
        let height = min(canvas.height - 2, rows.count + 2)
        let x = (canvas.width - width) / 2
        let y = max(1, (canvas.height - height) / 2)
        canvas.fill(x: x, y: y, width: width, height: height, role: .overlay)
        canvas.box(x: x, y: y, width: width, height: height, title: title, role: .borderFocused, titleRole: .title)
        for (i, row) in rows.prefix(height - 2).enumerated() {
            if row.1 == .selected { canvas.fill(x: x + 1, y: y + 1 + i, width: width - 2, height: 1, role: .selected) }
            canvas.putTruncated(row.0, x: x + 3, y: y + 1 + i, width: width - 6, role: row.1)
        }
    }
}
