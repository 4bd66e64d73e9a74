import Foundation
import UICore

/// A pane's timelines over the last 2, 10 or 60 minutes (btop is the model): the tokens held
/// (iat to exp, refresh point marked, fingerprint where it fits), each request's outcome, ID
/// changes as vertical marks, a latency graph with its scale, and a labelled time axis.
struct TimelineRenderer {
    let view: PaneView
    private var pane: PaneState { view.pane }

    /// Rows of the whole timeline, and of the compact one (no latency graph).
    static let fullRows = 6
    static let compactRows = 4
    private static let blocks: [Unicode.Scalar] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    typealias Line = PaneRenderer.Line

    /// The Fleet Engine lane's row, once the SDK has called Fleet Engine: a pane that makes no
    /// calls keeps its timeline as it was.
    var laneRows: Int { pane.timeline.calls.isEmpty ? 0 : 1 }

    /// What the lines are drawn from: a frame whose key is the last one's draws the same lines.
    struct Key: Equatable {
        var width: Int
        var rows: Int
        var minutes: Int
        /// Where the last column ends, and whether its middle is past: within one stretch of
        /// time, the only things `now` changes.
        var end: Double
        var lastPast: Bool
        var timeline: Timeline
        var marks: [Mark]
        /// Which marks are drawn in the last column for being made just now.
        var justNow: [Bool]
        var simulated: Bool
    }

    /// The lines, from `memo` when nothing they are drawn from changed since its last frame.
    func lines(width: Int, rows: Int, memo: RenderMemo?) -> [Line] {
        let plot = width - PaneRenderer.labelWidth
        guard rows >= Self.compactRows + laneRows, plot >= 10 else { return [] }
        guard let memo else { return lines(width: width, rows: rows) }
        let (end, step) = stretch(plot: plot)
        let key = Key(
            width: width, rows: rows, minutes: view.timelineMinutes, end: end,
            lastPast: end - step / 2 <= view.now.timeIntervalSince1970, timeline: pane.timeline, marks: view.marks,
            justNow: view.marks.map { justNow($0, end: end, span: step * Double(plot)) },
            simulated: pane.seenMembers == nil)
        if let kept = memo.timelines[pane.kind], kept.key == key { return kept.lines }
        let made = lines(width: width, rows: rows)
        memo.timelines[pane.kind] = (key, made)
        return made
    }

    /// Where the last column ends, and a column's length. Columns are fixed stretches of time,
    /// the last one holding now: the lanes move a column at a time, all together, as btop's
    /// graphs do, so the frames within one stretch draw the same lanes.
    private func stretch(plot: Int) -> (end: Double, step: Double) {
        let step = TimeInterval(view.timelineMinutes * 60) / Double(plot)
        return (((view.now.timeIntervalSince1970 / step).rounded(.down) + 1) * step, step)
    }

    /// Whether `mark` is out of view but made within a second of now: it goes in the last column.
    private func justNow(_ mark: Mark, end: Double, span: TimeInterval) -> Bool {
        let at = mark.at.timeIntervalSince1970
        return !(end - span..<end).contains(at) && abs(mark.at.timeIntervalSince(view.now)) < 1
    }

    func lines(width: Int, rows: Int) -> [Line] {
        let plot = width - PaneRenderer.labelWidth
        guard rows >= Self.compactRows + laneRows, plot >= 10 else { return [] }
        let span = TimeInterval(view.timelineMinutes * 60)
        let (end, step) = stretch(plot: plot)
        let start = Date(timeIntervalSince1970: end - span)
        // Which column a time falls in, if in view.
        func column(_ t: Date) -> Int? {
            let c = Int((t.timeIntervalSince(start) / step).rounded(.down))
            return (0..<plot).contains(c) ? c : nil
        }
        var idMarks = Set<Int>()
        for change in pane.timeline.idChanges { if let c = column(change) { idMarks.insert(c) } }

        var out: [Line] = []
        out.append(PaneRenderer.rule("Timeline · last \(view.timelineMinutes) min  (+/- zoom)", width: width))
        out.append(
            Line(
                label: "tokens",
                cells: tokenLane(plot: plot, start: start, step: step, column: column, idMarks: idMarks)))
        out.append(Line(label: "requests", cells: outcomeLane(plot: plot, column: column, idMarks: idMarks)))
        if laneRows > 0 {
            out.append(Line(label: "Fleet Eng.", cells: callLane(plot: plot, column: column, idMarks: idMarks)))
        }
        if rows >= Self.fullRows + laneRows {
            out.append(contentsOf: latencyLines(plot: plot, column: column))
        }
        let marks = markCells(plot: plot, end: end, span: span, column: column)
        var axisCells = axis(plot: plot, span: span, clearOf: Set(marks.keys))
        for (c, cell) in marks { axisCells[c] = cell }
        out.append(Line(label: view.marks.isEmpty ? "" : "marks ▲", cells: axisCells))
        return out
    }

    private func tokenLane(plot: Int, start: Date, step: TimeInterval, column: (Date) -> Int?, idMarks: Set<Int>)
        -> [Cell]
    {
        let spans = pane.timeline.spans
        var cells = [Cell](repeating: Cell(), count: plot)
        // The token each column shows: the newest one valid there.
        var owner = [Int](repeating: -1, count: plot)
        let firstStart = spans.first?.from
        for c in 0..<plot {
            let t = start.addingTimeInterval((Double(c) + 0.5) * step)
            if let i = spans.lastIndex(where: { $0.from <= t && t < $0.to }) {
                owner[c] = i
                // Neighbouring tokens alternate in colour, so a refresh shows as a change of colour.
                cells[c] = Cell("━", role: i % 2 == 0 ? .gaugeFresh : .title)
            } else if let firstStart, t >= firstStart, t <= view.now {
                cells[c] = Cell("·", role: .error)
            }
        }
        var marks = idMarks
        for span in spans { if let refresh = span.refreshAt, let r = column(refresh) { marks.insert(r) } }
        // Each token's fingerprint inside its own stretch of the lane, clear of any mark.
        var labelled = Set<Int>()
        var c = 0
        while c < plot {
            let i = owner[c]
            var end = c
            while end < plot, owner[end] == i, end == c || !marks.contains(end) { end += 1 }
            if i >= 0, !labelled.contains(i) {
                let label = "#" + spans[i].fingerprint
                if end - c >= label.unicodeScalars.count + 2 {
                    for (k, ch) in label.unicodeScalars.enumerated() { cells[c + 1 + k].scalar = ch }
                    labelled.insert(i)
                }
            }
            c = end
        }
        for span in spans {
            if let refresh = span.refreshAt, let r = column(refresh) { cells[r] = Cell("┃", role: .gaugeMargin) }
        }
        for c in idMarks { cells[c] = Cell("┊", role: .warning) }
        return cells
    }

    private func outcomeLane(plot: Int, column: (Date) -> Int?, idMarks: Set<Int>) -> [Cell] {
        markLane(pane.timeline.outcomes.lazy.map { ($0.time, $0.ok) }, plot: plot, column: column, idMarks: idMarks)
    }

    /// ✓ and ✗ at their times, ID changes as `┊`; a failure in a column outweighs a success there.
    private func markLane(_ marks: some Sequence<(Date, Bool)>, plot: Int, column: (Date) -> Int?, idMarks: Set<Int>)
        -> [Cell]
    {
        var cells = [Cell](repeating: Cell(), count: plot)
        for c in idMarks { cells[c] = Cell("┊", role: .warning) }
        for (time, ok) in marks {
            guard let c = column(time) else { continue }
            if ok, cells[c].scalar == "✗" { continue }
            cells[c] = ok ? Cell("✓", role: .ok) : Cell("✗", role: .error)
        }
        return cells
    }

    /// Each Fleet Engine call with the token: ✓ answered, ✗ refused or failed.
    private func callLane(plot: Int, column: (Date) -> Int?, idMarks: Set<Int>) -> [Cell] {
        markLane(pane.timeline.calls.lazy.map { ($0.time, $0.ok) }, plot: plot, column: column, idMarks: idMarks)
    }

    /// Two rows of eighth blocks, scaled to the slowest request in view.
    private func latencyLines(plot: Int, column: (Date) -> Int?) -> [Line] {
        var worst = [TimeInterval](repeating: -1, count: plot)
        for outcome in pane.timeline.outcomes {
            guard let c = column(outcome.time) else { continue }
            worst[c] = max(worst[c], outcome.latency)
        }
        let scale = max(0.001, worst.max() ?? 0)
        var top = [Cell](repeating: Cell(" ", role: .gaugeFresh), count: plot)
        var bottom = top
        for c in 0..<plot where worst[c] >= 0 {
            let level = max(1, Int((worst[c] / scale * 16).rounded(.up)))
            bottom[c].scalar = Self.blocks[min(8, level)]
            if level > 8 { top[c].scalar = Self.blocks[level - 8] }
        }
        // With nothing to scale, a tap's pane leaves the scale blank rather than say `latency`
        // twice (the simulated panes' frames keep theirs).
        let none = pane.seenMembers == nil ? "latency" : ""
        let scaleLabel = worst.max().map { $0 >= 0 ? Format.milliseconds(scale) : none } ?? none
        return [Line(label: scaleLabel, cells: top), Line(label: "latency", cells: bottom)]
    }

    /// `−10 m ───┴─── −5 m ───┴─── now`: five ticks with their times.
    private func axis(plot: Int, span: TimeInterval, clearOf taken: Set<Int> = []) -> [Cell] {
        var cells = [Cell](repeating: Cell("─", role: .dim), count: plot)
        let ticks = plot >= 40 ? 4 : 2
        for k in 0...ticks {
            let c = k * (plot - 1) / ticks
            let ago = span * Double(ticks - k) / Double(ticks)
            let text = k == ticks ? "now" : "−" + Self.short(ago)
            cells[c].scalar = "┴"
            // Labels after their tick; the last one ends at it.
            let at = k == ticks ? c - text.count : c + 1
            guard at >= 0, at + text.count <= plot, !(at..<(at + text.count)).contains(where: taken.contains) else {
                continue
            }
            for (i, ch) in text.unicodeScalars.enumerated() { cells[at + i].scalar = ch }
        }
        return cells
    }

    /// The user's marks on the axis, `▲` and the mark's number, by column: the time labels give
    /// way to them, since a mark says why this moment matters and a label only where it is.
    private func markCells(plot: Int, end: Double, span: TimeInterval, column: (Date) -> Int?) -> [Int: Cell] {
        var cells: [Int: Cell] = [:]
        for mark in view.marks {
            // A mark stamped a moment past the last column (a clock a little ahead) goes in it.
            guard let c = column(mark.at) ?? (justNow(mark, end: end, span: span) ? plot - 1 : nil) else {
                continue
            }
            cells[c] = Cell("▲", role: .title)
            let number = Array(String(mark.number).unicodeScalars)
            // After the mark, or before it at the right edge (a mark made just now).
            let at = c + 1 + number.count <= plot ? c + 1 : max(0, c - number.count)
            for (k, ch) in number.enumerated() where at + k != c && cells[at + k]?.scalar != "▲" {
                cells[at + k] = Cell(ch, role: .title)
            }
        }
        return cells
    }

    /// `10 m`, `7.5 m`, `30 s`.
    static func short(_ seconds: TimeInterval) -> String {
        if seconds < 120 { return "\(Int(seconds.rounded())) s" }
        let tenths = Int((seconds / 6).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10) m" : "\(tenths / 10).\(tenths % 10) m"
    }
}
