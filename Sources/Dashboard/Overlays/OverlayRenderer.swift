import Foundation
import UICore

/// Help, the fault menu, the scenario menu and the prompts, drawn over the panes from an `OverlayView`.
enum OverlayRenderer {
    static func draw(_ view: OverlayView, _ canvas: inout Canvas) {
        switch view.shape {
        case .none: return
        case .panel(let title, let rows, let trailer):
            let shown = rows.count + trailer.count + 2 <= canvas.height - 2 ? rows + trailer : rows
            panel(&canvas, title: title, rows: shown)
        case .prompt(let title, let label, let text, let note, let hint):
            // A long ID shows its end, where the typing is.
            let room = max(8, min(canvas.width - 4, 80) - 8 - label.count - 1)
            let typed = text.count > room ? "…" + text.suffix(room - 1) : text
            panel(
                &canvas, title: title,
                rows: [("\(label): \(typed)█", .overlay), (note ?? "", .warning), (hint, .dim)])
        }
    }

    private static func panel(_ canvas: inout Canvas, title: String, rows: [OverlayView.Row]) {
        let width = min(canvas.width - 4, max(44, (rows.map(\.text.count).max() ?? 0) + 6))
        let height = min(canvas.height - 2, rows.count + 2)
        let x = (canvas.width - width) / 2
        let y = max(1, (canvas.height - height) / 2)
        canvas.fill(x: x, y: y, width: width, height: height, role: .overlay)
        canvas.box(x: x, y: y, width: width, height: height, title: title, role: .borderFocused, titleRole: .title)
        for (i, row) in rows.prefix(height - 2).enumerated() {
            if row.role == .selected {
                canvas.fill(x: x + 1, y: y + 1 + i, width: width - 2, height: 1, role: .selected)
            }
            canvas.putTruncated(row.text, x: x + 3, y: y + 1 + i, width: width - 6, role: row.role)
        }
    }
}
