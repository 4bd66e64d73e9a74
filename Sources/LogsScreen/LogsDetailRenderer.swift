import LogReading
import UICore

/// One ID followed: its line of figures, its calls over the export's span (the stretches it
/// called in, its silences marked), what the tap says of it, its silences, errors and messages,
/// methods, and its SDK header as it changed. Sections are cut to the rows there are.
enum LogsDetailRenderer {
    /// `summary` gives the span the lane is drawn over (the whole export's, while it plays);
    /// `playhead`, when not at the end, where the lane stops.
    static func render(
        _ row: LogsView.Row, summary: LogSummary, playhead: LogInstant? = nil, into canvas: inout Canvas, top: Int,
        bottom: Int
    ) {
        let tally = row.tally
        let width = canvas.width - 2
        var y = top
        var x = 1 + canvas.put("\(LogsRenderer.kindName(tally.id.kind)) \(tally.id.id)", x: 1, y: y, role: .title)
        let errors = tally.errors.values.reduce(0, +)
        var figures = [
            "calls \(LogsRenderer.group(tally.calls))", "errors \(LogsRenderer.group(errors))",
            "\(LogsRenderer.oneDecimal(tally.callsPerMinute))/min",
        ]
        if let first = tally.first, let last = tally.last {
            figures.append("\(LogsRenderer.clock(first)) → \(LogsRenderer.clock(last))")
        }
        // Playing, a silence shows as it happens, before the call that ends it makes it one.
        if let quiet = row.quietFor {
            x += canvas.put("  quiet \(LogsRenderer.duration(quiet)) so far", x: x, y: y, role: .warning)
        }
        canvas.putTruncated("  " + figures.joined(separator: " · "), x: x, y: y, width: canvas.width - x - 1)
        y += 1
        x = 1 + canvas.put("calls ", x: 1, y: y, role: .dim)
        canvas.put(
            cells: lane(tally, summary: summary, playhead: playhead, width: canvas.width - x - 1), x: x, y: y,
            limit: width)
        y += 2
        var lines: [(String, StyleRole)] = []
        if let sentence = row.finding?.sentence {
            lines.append(("Tap", .title))
            lines += wrap(sentence, width: width - 2).map { ("  " + $0, findingRole(row.finding)) }
        }
        lines += section(
            "Silences",
            tally.silences.map { silence in
                "\(LogsRenderer.clock(silence.start))  \(LogsRenderer.duration(silence.seconds))"
                    + tapNote(row.finding, at: silence.start)
            }, role: .warning)
        lines += section(
            "Errors",
            tally.errors.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }
                + tally.errorMessages.reversed().map { "“\($0)”" }, role: .error)
        lines += section(
            "Methods", tally.methods.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" },
            role: .text)
        lines += section("SDK header", tally.headerChanges.map(headerLine), role: .text)
        for (text, role) in lines.prefix(max(0, bottom - y)) {
            canvas.putTruncated(text, x: 1, y: y, width: width, role: role)
            y += 1
        }
    }

    static func section(_ title: String, _ items: [String], role: StyleRole) -> [(String, StyleRole)] {
        items.isEmpty ? [] : [(title, .title)] + items.map { ("  " + $0, role) }
    }

    static func findingRole(_ finding: TapJoin.Finding?) -> StyleRole {
        switch finding?.verdict {
        case .refusedWhileSilent?, .noTokenWhileSilent?: .error
        case .fetchedGoodWhileSilent?: .warning
        default: .text
        }
    }

    /// "  (tap: 4 fetches, 4 flawed)" for the silence starting at `start`.
    static func tapNote(_ finding: TapJoin.Finding?, at start: LogInstant) -> String {
        guard let window = finding?.windows.first(where: { $0.start == start && $0.edge == nil }) else { return "" }
        guard window.fetches > 0 else { return "  (tap: no fetch)" }
        var parts = ["\(window.fetches) \(window.fetches == 1 ? "fetch" : "fetches")"]
        if window.flawed > 0 { parts.append("\(window.flawed) flawed") }
        if window.failed > 0 { parts.append("\(window.failed) failed") }
        return "  (tap: " + parts.joined(separator: ", ") + ")"
    }

    static func headerLine(_ change: IDTally.HeaderChange) -> String {
        let header = change.header
        return
            ([LogsRenderer.clock(change.time)]
            + [
                header.platform, header.sdkType, header.sdkVersion.map { "SDK \($0)" },
                header.osVersion.map { "OS \($0)" },
                header.deviceModel,
            ].compactMap { $0 }).joined(separator: "  ")
    }

    /// The export's span in `width` columns: █ where the ID called, ░ in its silences, · before its
    /// first call and after its last, blank after the playhead (not played yet).
    static func lane(_ tally: IDTally, summary: LogSummary, playhead: LogInstant? = nil, width: Int) -> [Cell] {
        guard width > 0, let from = summary.from, let to = summary.to else { return [] }
        let span = max(1e-6, from.seconds(to: to))
        func column(_ instant: LogInstant) -> Int {
            min(width - 1, max(0, Int((from.seconds(to: instant) / span * Double(width)).rounded(.down))))
        }
        var cells = Array(repeating: Cell("·", role: .dim), count: width)
        if let first = tally.first, let last = tally.last {
            for index in column(first)...column(last) { cells[index] = Cell(" ") }
        }
        for silence in tally.silences {
            let start = column(silence.start)
            let end = column(silence.start.adding(seconds: silence.seconds))
            for index in start...end { cells[index] = Cell("░", role: .warning) }
        }
        for stretch in tally.cadence.callingStretches {
            for index in column(stretch.start)...column(stretch.end) { cells[index] = Cell("█", role: .ok) }
        }
        if let playhead, playhead < to {
            for index in (column(playhead) + 1)..<width { cells[index] = Cell(" ") }
        }
        return cells
    }

    /// `text` in lines of at most `width` columns, broken at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 10 else { return [text] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
