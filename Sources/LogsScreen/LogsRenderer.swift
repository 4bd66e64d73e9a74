import LogReading
import Settings
import UICore

/// Draws a `LogsView`: the export's header, then the table of IDs (one row each, the troubled
/// first) or one ID's detail, and the keys at the foot. At 80 columns the table keeps what says
/// trouble (calls, errors, silences, the last call, the SDK); wider, it adds the error codes, the
/// platform, the OS and the tap's verdict.
public enum LogsRenderer {
    /// The row the table's first ID is drawn on (after the header's three lines and the column titles).
    public static let tableTop = 4
    /// Columns from which the wide table is drawn.
    static let wide = 150

    /// How many table rows fit in `height`.
    public static func tableRows(height: Int) -> Int { max(0, height - tableTop - 1) }

    public static func render(_ view: LogsView, width: Int, height: Int) -> Canvas {
        var canvas = Canvas(width: width, height: height)
        guard width >= 20, height >= 6 else {
            canvas.putTruncated("tokendash logs: the terminal is too small", x: 0, y: 0, width: width, role: .warning)
            return canvas
        }
        header(view, into: &canvas)
        if let row = view.followedRow {
            LogsDetailRenderer.render(
                row, summary: view.player?.whole ?? view.summary, playhead: view.player?.playhead, into: &canvas,
                top: tableTop - 1, bottom: height - 1)
        } else if view.showingVersions {
            LogsVersionsRenderer.render(view.summary, into: &canvas, top: tableTop - 1, bottom: height - 1)
        } else {
            table(view, into: &canvas)
        }
        footer(view, into: &canvas)
        return canvas
    }

    // MARK: - Header and footer

    static func header(_ view: LogsView, into canvas: inout Canvas) {
        let summary = view.summary
        // The top bar, as the dashboard's: one style across the width.
        canvas.fill(x: 0, y: 0, width: canvas.width, height: 1, role: .header)
        let x = canvas.put(" tokendash logs │ ", x: 0, y: 0, role: .header)
        canvas.putTruncated(
            view.source + " │ " + span(view.player?.whole ?? summary), x: x, y: 0, width: canvas.width - x,
            role: .header)
        let whole = view.player.flatMap { $0.atEnd ? nil : " of \(group($0.whole.entries))" } ?? ""
        var read = ["entries \(group(summary.entries))" + whole]
        let skipped = summary.skipped.values.reduce(0, +)
        if skipped > 0 {
            let reasons = summary.skipped.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }
            read.append(
                "skipped \(group(skipped)) ("
                    + reasons.prefix(3).map { "\($0.key.rawValue) \(group($0.value))" }.joined(separator: ", ")
                    + (reasons.count > 3 ? ", …" : "") + ")")
        }
        canvas.putTruncated((read + totals(summary)).joined(separator: " · "), x: 1, y: 1, width: canvas.width - 2)
        let used = view.player.map { playhead($0, into: &canvas) } ?? 0
        if let tap = tapTotals(summary) {
            canvas.putTruncated(tap, x: 1, y: 2, width: canvas.width - 2 - (used > 0 ? used + 2 : 0), role: .dim)
        }
    }

    /// The playhead at the right of the header's third line, as `replay`'s header says it
    /// ("10:04:10 ▶ ×60 4:10/8:53", ‖ and "paused" when paused), after a bar of the span played
    /// when the line has room. Returns the columns it took.
    static func playhead(_ player: LogsPlayer, into canvas: inout Canvas) -> Int {
        let total = player.from.seconds(to: player.to)
        let played = player.from.seconds(to: player.at)
        // Narrow, ‖ alone says paused: the tap's totals share the line.
        let pausedMark = canvas.width >= wide ? "‖ paused" : "‖"
        let text =
            "\(clock(player.at)) \(player.paused ? pausedMark : "▶") ×\(player.speed) "
            + "\(elapsed(played, total: total))/\(elapsed(total, total: total))"
        let length = text.count
        guard canvas.width - 2 > length else { return 0 }
        let textX = canvas.width - 1 - length
        canvas.put(text, x: textX, y: 2, role: player.paused ? .dim : .title)
        // The bar only where the tap's totals (at most about 70 columns) keep their room.
        let bar = min(40, canvas.width - 2 - length - 1 - 70)
        guard bar >= 10 else { return length }
        let filled = total > 0 ? Int((Double(bar) * played / total).rounded()) : bar
        let barX = textX - 1 - bar
        canvas.put(String(repeating: "━", count: filled), x: barX, y: 2, role: .gaugeFresh)
        canvas.put(String(repeating: "─", count: bar - filled), x: barX + filled, y: 2, role: .gaugeEmpty)
        return length + 1 + bar
    }

    /// "4:10", or "1:04:10" when the span is an hour or more.
    static func elapsed(_ seconds: Double, total: Double) -> String {
        let whole = max(0, Int(seconds.rounded(.down)))
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        if total >= 3600 { return "\(whole / 3600):\(two(whole / 60 % 60)):\(two(whole % 60))" }
        return "\(whole / 60):\(two(whole % 60))"
    }

    /// "2024-05-01 10:00:00 → 10:09:00 UTC (9 min)", both dates when the span crosses midnight.
    static func span(_ summary: LogSummary) -> String {
        guard let from = summary.from, let to = summary.to else { return "no entries" }
        let start = from.description
        let end = to.description
        let sameDay = start.prefix(10) == end.prefix(10)
        return "\(start.prefix(10)) \(clock(from)) → \(sameDay ? "" : end.prefix(10) + " ")\(clock(to)) UTC "
            + "(\(duration(from.seconds(to: to))))"
    }

    /// The devices, the trips and tasks, the silent and the erring.
    static func totals(_ summary: LogSummary) -> [String] {
        let devices = summary.ids.count { $0.id.kind.isDevice }
        return [
            "devices \(group(devices))", "trips and tasks \(group(summary.ids.count - devices))",
            "silent \(group(summary.ids.count { !$0.silences.isEmpty }))",
            "with errors \(group(summary.ids.count { !$0.errors.isEmpty }))",
        ]
    }

    /// What a tap recording added, or nil without one.
    static func tapTotals(_ summary: LogSummary) -> String? {
        guard let tap = summary.tap else { return nil }
        let totals = TapTotals(tap)
        let counts = totals.byVerdict.map { (label($0.verdict), $0.ids) } + [("only in the tap", totals.onlyInTap)]
        return "tap: fetches \(group(summary.tapFetches))"
            + counts.filter { $0.1 > 0 }.map { " · \($0.0) \(group($0.1))" }.joined()
    }

    /// A verdict as the header says it.
    static func label(_ verdict: TapJoin.Finding.Verdict) -> String {
        switch verdict {
        case .refusedWhileSilent: "refused while silent"
        case .noTokenWhileSilent: "without a token"
        case .fetchedGoodWhileSilent: "good tokens while silent"
        case .notRunning: "not running"
        }
    }

    static func footer(_ view: LogsView, into canvas: inout Canvas) {
        let y = canvas.height - 1
        if view.typingFilter || !view.filter.isEmpty {
            let listed = view.listed.count
            let text =
                view.typingFilter
                ? "find: \(view.filter)█"
                : "IDs holding \"\(view.filter)\": \(group(listed)) of \(group(view.rows.count))"
            let used = canvas.putTruncated(" " + text + "  ", x: 0, y: y, width: canvas.width, role: .overlay)
            if view.typingFilter {
                footerKeys([("Enter", "keep"), ("Esc", "clear")], x: used + 1, into: &canvas)
                return
            }
            if view.following == nil && !view.showingVersions {
                footerKeys([("Enter", "follow"), ("Esc", "all IDs"), ("q", "quit")], x: used + 1, into: &canvas)
                return
            }
        }
        var keys =
            view.following != nil
            ? [("↑↓", "next ID"), ("Esc", "table"), ("q", "quit")]
            : view.showingVersions
                ? [("v", "table"), ("q", "quit")]
                : [("↑↓", "select"), ("Enter", "follow"), ("/", "find"), ("v", "versions"), ("q", "quit")]
        if let player = view.player {
            // Playing is what the screen does next, so its key comes before quitting; the seek keys
            // only where there is room for them.
            keys.insert(("Space", player.paused ? "play" : "pause"), at: keys.count - 1)
            if canvas.width >= wide { keys.insert(contentsOf: [("←→", "seek"), (">", "speed")], at: keys.count - 1) }
        }
        footerKeys(keys, x: 1, into: &canvas)
    }

    static func footerKeys(_ keys: [(String, String)], x start: Int, into canvas: inout Canvas) {
        var x = start
        let y = canvas.height - 1
        for (key, label) in keys {
            x += canvas.put(key, x: x, y: y, role: .keyLabel)
            x += canvas.put(" \(label)  ", x: x, y: y, role: .keyHint)
        }
    }

    // MARK: - The table

    struct Column {
        let title: String
        let width: Int
        let right: Bool
        let value: (LogsView.Row) -> (String, StyleRole)
    }

    static func columns(width: Int) -> [Column] {
        let isWide = width >= wide
        var columns: [Column] = [
            Column(title: "KIND", width: isWide ? 9 : 4, right: false) { row in
                (isWide ? kindName(row.tally.id.kind) : shortKind(row.tally.id.kind), .dim)
            },
            Column(title: "ID", width: isWide ? 20 : 16, right: false) { row in (row.tally.id.id, .text) },
            Column(title: "CALLS", width: 6, right: true) { row in
                (group(row.tally.calls), row.tally.calls == 0 ? .warning : .text)
            },
            Column(title: "ERR", width: 4, right: true) { row in
                let errors = row.tally.errors.values.reduce(0, +)
                return (errors == 0 ? "-" : group(errors), errors == 0 ? .dim : .error)
            },
            Column(title: "/MIN", width: 5, right: true) { row in
                (row.tally.calls == 0 ? "-" : oneDecimal(row.tally.callsPerMinute), .text)
            },
            Column(title: "SILENT", width: 6, right: true) { row in
                let silences = row.tally.silences
                return (silences.isEmpty ? "-" : "\(silences.count)", silences.isEmpty ? .dim : .warning)
            },
            Column(title: "LONGEST", width: 7, right: true) { row in
                let longest = row.tally.silences.map(\.seconds).max()
                return (longest.map(duration) ?? "-", longest == nil ? .dim : .warning)
            },
            // Playing, the last call of an ID quiet past its threshold is marked: a silence under way.
            Column(title: "LAST", width: 8, right: true) { row in
                (row.tally.last.map(clock) ?? "-", row.quietFor == nil ? .text : .warning)
            },
        ]
        if isWide {
            columns.append(
                Column(title: "ERRORS", width: 22, right: false) { row in
                    let codes = row.tally.errors.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                    return (codes.map { "\($0.key) \($0.value)" }.joined(separator: ", "), .error)
                })
            columns.append(
                Column(title: "PLATFORM", width: 9, right: false) { row in (row.tally.header?.platform ?? "", .text) })
            columns.append(
                Column(title: "OS", width: 7, right: false) { row in (row.tally.header?.osVersion ?? "", .text) })
        }
        columns.append(
            Column(title: "SDK", width: isWide ? 18 : 0, right: false) { row in
                guard let header = row.tally.header else { return ("", .text) }
                return ([header.sdkType, header.sdkVersion].compactMap { $0 }.joined(separator: " "), .text)
            })
        if isWide {
            columns.append(
                Column(title: "TAP", width: 0, right: false) { row in
                    guard let verdict = row.finding?.verdict else { return ("", .dim) }
                    let role: StyleRole =
                        switch verdict {
                        case .refusedWhileSilent, .noTokenWhileSilent: .error
                        case .fetchedGoodWhileSilent: .warning
                        case .notRunning: .dim
                        }
                    return (verdict.rawValue.replacingOccurrences(of: "_", with: " "), role)
                })
        }
        return columns
    }

    static func table(_ view: LogsView, into canvas: inout Canvas) {
        let columns = columns(width: canvas.width)
        canvas.fill(x: 0, y: tableTop - 1, width: canvas.width, height: 1, role: .title)
        var x = 1
        for column in columns {
            let width = column.width == 0 ? canvas.width - x - 1 : column.width
            cell(column.title, x: x, width: width, right: column.right, y: tableTop - 1, role: .title, into: &canvas)
            x += width + 1
        }
        let rows = view.listed
        guard !rows.isEmpty else {
            let none = view.rows.isEmpty ? "no IDs in the export" : "no ID holds \"\(view.filter)\""
            canvas.put(none, x: 1, y: tableTop, role: .dim)
            return
        }
        let room = tableRows(height: canvas.height)
        for (offset, row) in rows.dropFirst(view.top).prefix(room).enumerated() {
            let y = tableTop + offset
            let selected = view.top + offset == view.selected
            if selected { canvas.fill(x: 0, y: y, width: canvas.width, height: 1, role: .selected) }
            var x = 1
            for column in columns {
                let width = column.width == 0 ? canvas.width - x - 1 : column.width
                let (text, role) = column.value(row)
                cell(
                    text, x: x, width: width, right: column.right, y: y, role: selected ? .selected : role,
                    into: &canvas)
                x += width + 1
            }
        }
    }

    static func cell(
        _ text: String, x: Int, width: Int, right: Bool, y: Int, role: StyleRole, into canvas: inout Canvas
    ) {
        guard width > 0 else { return }
        let shown = right && text.count < width ? String(repeating: " ", count: width - text.count) + text : text
        canvas.putTruncated(shown, x: x, y: y, width: width, role: role)
    }

    // MARK: - Words and numbers

    static func kindName(_ kind: LoggedIDKind) -> String {
        switch kind {
        case .vehicle: "vehicle"
        case .trip: "trip"
        case .deliveryVehicle: "delivery"
        case .task: "task"
        }
    }

    static func shortKind(_ kind: LoggedIDKind) -> String {
        switch kind {
        case .vehicle: "veh"
        case .trip: "trip"
        case .deliveryVehicle: "dveh"
        case .task: "task"
        }
    }

    /// "10:09:00": the time of day of an instant, in UTC.
    static func clock(_ instant: LogInstant) -> String { String(instant.description.dropFirst(11).prefix(8)) }

    /// "45 s", "5 min", "3 h".
    static func duration(_ seconds: Double) -> String {
        if seconds < 120 { return "\(Int(seconds.rounded())) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded())) min" }
        return "\(Int((seconds / 3600).rounded())) h"
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// 12,345, as every count tokendash prints (`SettingText.grouped`).
    static func group(_ n: Int) -> String { SettingText.grouped(n) }
}
