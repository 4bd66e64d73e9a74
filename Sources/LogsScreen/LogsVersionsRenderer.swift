import LogReading
import UICore

/// The devices grouped by what they run (platform, SDK type, SDK version: their latest header),
/// with their calls, errors and silences, and with a tap recording the devices whose silence it
/// explains: "SDK 5.0.0 on Android: 12 of 40 devices silent" is the line taken to a customer.
enum LogsVersionsRenderer {
    static func render(_ summary: LogSummary, into canvas: inout Canvas, top: Int, bottom: Int) {
        // At 80 columns every column fits, the tap's included; wider, the titles are whole words.
        let narrow = canvas.width < 100
        let titles = [
            "PLATFORM", narrow ? "TYPE" : "SDK TYPE", "SDK", "DEVICES", "CALLS", "ERRORS", narrow ? "SIL." : "SILENCES",
            "SILENT", narrow ? "TAP EXPL." : "TAP EXPLAINED",
        ]
        let widths = narrow ? [8, 6, 8, 7, 8, 6, 5, 10, 9] : [10, 10, 12, 8, 9, 7, 9, 10, 14]
        func line(_ cells: [String], y: Int, role: StyleRole) {
            var x = 1
            for (index, text) in cells.enumerated() where x < canvas.width - 1 {
                LogsRenderer.cell(
                    text, x: x, width: min(widths[index], canvas.width - x - 1), right: index >= 3, y: y, role: role,
                    into: &canvas)
                x += widths[index] + 1
            }
        }
        canvas.fill(x: 0, y: top, width: canvas.width, height: 1, role: .title)
        line(summary.tap == nil ? Array(titles.dropLast()) : titles, y: top, role: .title)
        guard !summary.versions.isEmpty else {
            canvas.put("no devices in the export", x: 1, y: top + 1, role: .dim)
            return
        }
        for (offset, row) in summary.versions.prefix(max(0, bottom - top - 1)).enumerated() {
            var cells = [
                row.platform ?? "-", row.sdkType ?? "-", row.sdkVersion ?? "-", LogsRenderer.group(row.devices),
                LogsRenderer.group(row.calls), LogsRenderer.group(row.errors), LogsRenderer.group(row.silences),
                "\(LogsRenderer.group(row.silentDevices)) of \(LogsRenderer.group(row.devices))",
            ]
            if let explained = row.tapExplained { cells.append(LogsRenderer.group(explained)) }
            line(cells, y: top + 1 + offset, role: row.silentDevices > 0 ? .warning : .text)
        }
    }
}
