import UICore
import Foundation

/// Help, the fault menu and the ID prompt, drawn over the panes.
struct OverlayRenderer {
    let state: DashboardState

    func draw(_ canvas: inout Canvas) {
        switch state.overlay {
        case .none: return
        case .help:
            let rows = KeyBinding.visible(fleet: state.isFleet).map { binding in
                let keys = binding.keys.map(Self.name).joined(separator: " ")
                return (keys.fitted(10) + binding.help, StyleRole.overlay)
            }
            panel(&canvas, title: "Keys", rows: rows + [("", .overlay), ("any key closes this help", .dim)])
        case .faults(let selection, let scope):
            guard state.faultsAvailable else {
                panel(&canvas, title: "Faults", rows: [
                    ("Fault injection needs the embedded token server;", .overlay),
                    ("this run uses --consumer-url/--driver-url.", .overlay),
                    ("", .overlay), ("Esc closes", .dim),
                ])
                return
            }
            var rows: [(String, StyleRole)] = [("applies to: \(scope.rawValue)   (Tab: consumer / driver / both)", .overlay), ("", .overlay)]
            for (i, choice) in Reducer.faultMenuRows.enumerated() {
                let text = "\(i + 1)  " + (choice?.label ?? "off (clear faults)")
                rows.append((text, i == selection ? .selected : .overlay))
            }
            let active = state.activeFaults.isEmpty ? "none" : state.activeFaultsText
            rows += [("", .overlay), ("active: \(active)", .overlay), ("↑/↓ and Enter, or 1-7; Esc closes", .dim)]
            panel(&canvas, title: "Faults of the embedded server", rows: rows)
        case .input(let text, let note):
            let noun = state.focus.idNoun
            // A long ID shows its end, where the typing is.
            let room = max(8, min(canvas.width - 4, 80) - 8 - noun.count - 5)
            let shown = text.count > room ? "…" + text.suffix(room - 1) : text
            panel(&canvas, title: "Switch \(noun)", rows: [
                ("new \(noun): \(shown)█", .overlay),
                (note ?? "", .warning),
                ("Enter switches, Esc cancels, Ctrl-U clears; letters, digits, . _ -", .dim),
            ])
        }
    }

    private func panel(_ canvas: inout Canvas, title: String, rows: [(String, StyleRole)]) {
        let width = min(canvas.width - 4, max(44, (rows.map(\.0.count).max() ?? 0) + 6))
        let height = min(canvas.height - 2, rows.count + 2)
        let x = (canvas.width - width) / 2, y = max(1, (canvas.height - height) / 2)
        canvas.fill(x: x, y: y, width: width, height: height, role: .overlay)
        canvas.box(x: x, y: y, width: width, height: height, title: title, role: .borderFocused, titleRole: .title)
        for (i, row) in rows.prefix(height - 2).enumerated() {
            if row.1 == .selected { canvas.fill(x: x + 1, y: y + 1 + i, width: width - 2, height: 1, role: .selected) }
            canvas.putTruncated(row.0, x: x + 3, y: y + 1 + i, width: width - 6, role: row.1)
        }
    }

    static func name(_ key: Key) -> String {
        switch key {
        case .character(let c): String(c)
        case .tab: "Tab"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Bksp"
        case .up: "↑"
        case .down: "↓"
        case .interrupt: "Ctrl-C"
        case .resize: "resize"
        case .click: "click"
        }
    }
}
