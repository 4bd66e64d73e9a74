import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import Redaction
import TokenJudging
import UICore

/// Draws one provider's pane: ID, token, claims, countdown, checks, counters, ID history, fetch log.
/// On a short pane the essentials come first; claims shrink, then history and log get what is left.
struct PaneRenderer {
    let view: PaneView
    /// Keeps the fetch log's rows as cells from one frame to the next (the live loop's, a cast's).
    var memo: RenderMemo? = nil
    private var pane: PaneState { view.pane }

    static let labelWidth = 11
    /// Rows of a pane with its essentials: ID, token, expiry, checks, counters, in a border.
    static let essentialHeight = 7

    private var focused: Bool { view.focused }

    func draw(_ canvas: inout Canvas, in rect: Rect) {
        let (x, y, width, height) = (rect.x, rect.y, rect.width, rect.height)
        guard width >= 20, height >= 3 else { return }
        // The response shape the token came in, so a user knows what was read from their backend.
        let shape = pane.token?.shape.map { " · \($0)" } ?? ""
        // A sample's logic before the shape: which code runs matters more than how it was answered.
        let logic = view.logicLabel.map { " · \($0)" } ?? ""
        canvas.box(
            x: x, y: y, width: width, height: height, title: (focused ? "▶ " : "") + pane.title + logic + shape,
            role: focused ? .borderFocused : .border, titleRole: .title)
        var lines: [Line] = []
        let innerWidth = width - 4
        let innerHeight = height - 2
        lines.append(idLine(width: innerWidth))
        lines.append(contentsOf: tokenLines(width: innerWidth, room: innerHeight))
        lines.append(expiryLine(width: innerWidth))
        lines.append(checksLine)
        // The contract's breaches come before Fleet Engine's lines: they are why its answers fail.
        // A tall pane gives each the lines its cause takes (served-after-exp names what the
        // backend sent and how the class misread it).
        for breach in pane.breaches.suffix(innerHeight >= 20 ? 4 : 1) {
            lines.append(
                contentsOf: Self.wrapped(
                    "Your code", breach.sentence, role: .error, width: innerWidth,
                    maxLines: innerHeight >= 36 ? 4 : innerHeight >= 20 ? 2 : 1))
        }
        lines.append(contentsOf: fleetEngineLines(width: innerWidth, room: innerHeight))
        // An agreeing clock is worth a row only where rows are plenty; a skewed one always is.
        if let (clockLine, level) = clockLine, innerHeight >= 14 || level != .ok {
            lines.append(clockLine)
        }
        if let error = pane.lastError, pane.token != nil {
            lines.append(
                contentsOf: Self.wrapped(
                    "Last error", error, role: .error, width: innerWidth, maxLines: errorLines(innerHeight)))
        }
        lines.append(countersLine(width: innerWidth))
        let rest = innerHeight - lines.count
        // A tap's followed ID: its fetches before its claims, which Checks names already, when rows are few.
        if pane.tapped == nil || rest >= 14 { lines.append(contentsOf: claimLines(full: rest >= 14)) }
        let remaining = innerHeight - lines.count
        if remaining >= 2 {
            // A tap's ID never changes: its pane has no ID changes to list.
            let historyRows =
                pane.seenMembers != nil
                ? 0 : remaining >= 10 ? min(max(1, pane.history.count), 5) : (remaining >= 6 ? 1 : 0)
            if historyRows > 0 {
                lines.append(Self.rule("ID changes (\(pane.history.count))", width: innerWidth))
                lines.append(contentsOf: historyLines(historyRows, width: innerWidth))
            }
            // The log keeps a rule and two lines; the timeline shrinks (then goes) before it does.
            let shared = innerHeight - lines.count
            let renderer = TimelineRenderer(view: view)
            let full = TimelineRenderer.fullRows + renderer.laneRows
            let compact = TimelineRenderer.compactRows + renderer.laneRows
            let timelineRows = shared - 3 >= full ? full : (shared - 3 >= compact ? compact : 0)
            let timeline = renderer.lines(width: innerWidth, rows: timelineRows, memo: memo)
            lines.append(Self.rule("Fetch log", width: innerWidth))
            lines.append(contentsOf: logLines(shared - 1 - timeline.count, width: innerWidth))
            while lines.count < innerHeight - timeline.count { lines.append(Line([])) }
            lines.append(contentsOf: timeline)
        }
        for (row, line) in lines.prefix(innerHeight).enumerated() {
            line.draw(&canvas, x: x + 2, y: y + 1 + row, width: innerWidth)
        }
    }

    // MARK: - Lines

    /// A labelled line of styled segments.
    struct Line {
        var label: String?
        /// Fixed-width columns before the segments: a table's row, its padding made of no string.
        var columns: [Column] = []
        var segments: [(String, StyleRole)]
        /// Cells drawn as they are after the label: a graph's lane, made without strings.
        var cells: [Cell] = []
        init(label: String? = nil, _ segments: [(String, StyleRole)]) {
            self.label = label
            self.segments = segments
        }

        init(columns: [Column], _ segments: [(String, StyleRole)]) {
            self.columns = columns
            self.segments = segments
        }

        init(label: String?, cells: [Cell]) {
            self.label = label
            self.segments = []
            self.cells = cells
        }

        func draw(_ canvas: inout Canvas, x: Int, y: Int, width: Int) {
            var column = 0
            if let label {
                canvas.put(label, x: x, y: y, role: .dim, limit: width)
                column = PaneRenderer.labelWidth
            }
            for field in columns where column < width {
                column += field.draw(&canvas, x: x + column, y: y, room: width - column)
            }
            for (text, role) in segments where column < width {
                column += canvas.putTruncated(text, x: x + column, y: y, width: width - column, role: role)
            }
            column += canvas.put(cells: cells, x: x + column, y: y, limit: width - column)
        }
    }

    /// `text` in `width` columns, then `gap` spaces, all in `role`: cut to the width (as
    /// `fitted`), or padded on the right, or on the left when `right` (as `leftPadded`, which
    /// never cuts). Drawn as that padded text would be by `putTruncated`, without making it: the
    /// fetch log's rows were half string padding.
    struct Column {
        var text: String
        var role: StyleRole
        var width: Int
        var right = false
        var gap = 0

        /// Draws into at most `room` cells from `x`; returns the cells used.
        func draw(_ canvas: inout Canvas, x: Int, y: Int, room: Int) -> Int {
            let count = text.count
            let shown = right ? count : min(count, width)
            let padding = max(0, width - count)
            let total = shown + padding + gap
            let used = min(total, room)
            canvas.fill(x: x, y: y, width: used, height: 1, role: role)
            let start = right ? padding : 0
            if start < used { canvas.put(text, x: x + start, y: y, role: role, limit: min(shown, used - start)) }
            // Cut at the edge, as `putTruncated` cuts: its last cell an ellipsis.
            if total > room, used > 0 { canvas[x + used - 1, y] = Cell("…", role: role) }
            return used
        }
    }

    /// Lines an error may take: its cause is often at the end (the body a backend sent), so a
    /// tall pane wraps it; a short one keeps its one line for the essentials.
    private func errorLines(_ room: Int) -> Int { room >= 20 ? 3 : 1 }

    /// `text` broken at spaces over at most `maxLines` labelled lines; what does not fit ends in "…".
    static func wrapped(_ label: String, _ text: String, role: StyleRole, width: Int, maxLines: Int) -> [Line] {
        Format.wrap(text, width: max(2, width - labelWidth), maxLines: maxLines).enumerated().map { i, chunk in
            Line(label: i == 0 ? label : "", [(chunk, role)])
        }
    }

    private func idLine(width: Int) -> Line {
        var after: [(String, StyleRole)] = []
        if pane.memberCount > 1 { after.append(("  (\(pane.memberIndex + 1) of \(pane.fleetSize))", .dim)) }
        let status = PaneStatus(pane, now: view.now, paused: view.paused)
        // A tap's churning ID: its trouble is the app's caching, not the token, which may be fine.
        // Judged at the frame's time: the ratio of the hour before now, not of when Enter was pressed.
        if let tapped = pane.tapped, let churn = tapped.churn(now: view.now) {
            // Narrow, the sentence is cut to its ratio and cause so the ID keeps its room.
            let brief = tapped.counts.fetchesPerToken(now: view.now).map(TappedCounts.churnBrief) ?? churn
            let fits = width - Self.labelWidth - after.reduce(0) { $0 + $1.0.count } - churn.count - 4 >= pane.id.count
            after.append(("  ● \(fits ? churn : brief)", .warning))
        } else if status != .waiting {
            after.append(("  ● \(status.label)", status.role))
        }
        // A long ID gives way in its middle, so the status after it stays in view.
        let room = width - Self.labelWidth - after.reduce(0) { $0 + $1.0.count }
        let segments = [(Format.elideMiddle(pane.id, max(5, room)), StyleRole.title)] + after
        return Line(label: pane.kind.spec.idLabel, segments)
    }

    private func tokenLines(width: Int, room: Int) -> [Line] {
        guard let token = pane.token else {
            guard let error = pane.lastError else { return [Line(label: "Token", [("none yet", .dim)])] }
            return Self.wrapped("Token", "none: \(error)", role: .error, width: width, maxLines: errorLines(room))
        }
        guard view.reveal else {
            return [
                Line(
                    label: "Token",
                    [
                        ("#" + token.fingerprint + "  ", .title),
                        (pane.redactedToken ?? TokenRedactor.redact(token.token), .text),
                        ("  (\(view.revealKey) reveals)", .dim),
                    ])
            ]
        }
        // Revealed: wrapped over as many lines as the pane can spare, so it can be copied.
        return Self.wrapped("Token", token.token, role: .warning, width: width, maxLines: max(1, room - 12))
    }

    private func expiryLine(width: Int) -> Line {
        guard let token = pane.token else { return Line(label: "Expires", [("–", .dim)]) }
        let left = token.expiresAt.timeIntervalSince(view.now)
        let lifetime = max(1, token.lifetime)
        // The provider's own (jittered) refresh point when it set one, else the configured margin.
        let margin =
            token.refreshAt.map { token.expiresAt.timeIntervalSince($0) }
            ?? FetchedToken.effectiveMargin(view.refreshMargin, lifetime: lifetime)
        let role = Self.gaugeRole(left: left, lifetime: lifetime, margin: margin)
        let text = left > 0 ? "in \(Format.duration(left))" : "expired \(Format.duration(-left)) ago"
        let (note, noteRole) = nextStep(left: left, margin: margin)
        // The bar takes the room the pane has: a wide pane shows the countdown in finer steps.
        let barWidth = max(4, width - Self.labelWidth - text.count - note.count - 4)
        let filled = left <= 0 ? 0 : min(barWidth, Int((left / lifetime * Double(barWidth)).rounded(.up)))
        // The refresh point as a mark in the bar: when the time left reaches it, the SDKs refresh.
        let mark =
            margin > 0 && margin < lifetime
            ? min(barWidth - 1, Int((margin / lifetime * Double(barWidth)).rounded(.down))) : nil
        var segments: [(String, StyleRole)] = [(text + "  ", role)]
        func bar(_ range: Range<Int>) {
            guard !range.isEmpty else { return }
            let full = range.clamped(to: 0..<filled)
            let empty = range.clamped(to: filled..<barWidth)
            if !full.isEmpty { segments.append((String(repeating: "█", count: full.count), role)) }
            if !empty.isEmpty { segments.append((String(repeating: "░", count: empty.count), .gaugeEmpty)) }
        }
        if let mark {
            bar(0..<mark)
            // Neutral: the bar itself takes the margin colour once the refresh point is passed.
            segments.append(("┃", .dim))
            bar((mark + 1)..<barWidth)
        } else {
            bar(0..<barWidth)
        }
        segments.append(("  " + note, noteRole))
        return Line(label: "Expires", segments)
    }

    /// What happens next to the token, in words: when it is refreshed, or why it is not yet.
    private func nextStep(left: TimeInterval, margin: TimeInterval) -> (String, StyleRole) {
        let status = PaneStatus(pane, now: view.now, paused: view.paused)
        var nextCall: String {
            guard let interval = view.updateInterval, let last = pane.lastCall else { return "at the next SDK update" }
            let wait = last.addingTimeInterval(interval).timeIntervalSince(view.now).rounded(.up)
            return wait > 0 ? "next SDK update in \(Format.duration(wait))" : "next SDK update due"
        }
        switch status {
        case .refreshing, .fetching: return ("refreshing…", .warning)
        case .expired:
            return (view.paused ? "paused: no SDK call fetches a new one" : "new token: \(nextCall)", .error)
        case .stale:
            if view.paused { return ("last fetch failed · paused", .warning) }
            if let retryAt = pane.retryAt, retryAt > view.now {
                let wait = Int(retryAt.timeIntervalSince(view.now).rounded(.up))
                return ("retrying in \(wait) s (attempt \(pane.attempt)) · r retries now", .warning)
            }
            return ("retrying: \(nextCall)", .warning)
        default: break
        }
        if margin <= 0 { return ("refresh at expiry", .dim) }
        if left > margin { return ("refresh in \(Format.duration(left - margin))", .dim) }
        return (view.paused ? "refresh due · paused" : "refresh due · \(nextCall)", .warning)
    }

    /// Green while fresh, the margin colour once the refresh margin is crossed, red in the last
    /// tenth of the lifetime (or 10 s) and when expired.
    static func gaugeRole(left: TimeInterval, lifetime: TimeInterval, margin: TimeInterval) -> StyleRole {
        if left <= 0 || left <= max(10, lifetime / 10) { return .gaugeCritical }
        if left <= margin { return .gaugeMargin }
        return .gaugeFresh
    }

    /// The verdict the provider reached when it accepted the token (`TokenRules` and the
    /// signature): the first warning when there is one, else what was checked.
    private var checksLine: Line {
        guard let token = pane.token else { return Line(label: "Checks", [("no token to check", .dim)]) }
        let warnings = token.findings.filter { $0.level >= .warn }
        if let first = warnings.first {
            let more = warnings.count > 1 ? "  (+\(warnings.count - 1) more)" : ""
            return Line(label: "Checks", [("! \(first.rule): \(first.reason)", .warning), (more, .dim)])
        }
        let lifetime = Int(token.lifetime.rounded())
        // A delivery consumer token may carry a task ID instead of the tracking ID.
        let authorization = token.jwt.claims["authorization"]
        let claimName = pane.kind.acceptedClaimNames.first { authorization?[$0] != nil } ?? pane.kind.claimName
        let claim = authorization?[claimName].map { $0.stringValue ?? $0.description } ?? "?"
        // The signature first: whether anyone checked who signed it matters more than the ID.
        let signature = token.signature?.level == .ok ? "signature ✓" : "signature not checked"
        let segments: [(String, StyleRole)] = [
            ("✓ ok", .ok), ("  \(signature), \(lifetime) s lifetime, \(claimName) \(claim)", .dim),
        ]
        return Line(label: "Checks", segments)
    }

    /// Fleet Engine's answer to the SDK's last call with its token (a refusal wrapped like an
    /// error, as its message is the explanation), and, when tokendash's rules and Fleet Engine
    /// disagree about the token, a line that says so.
    private func fleetEngineLines(width: Int, room: Int) -> [Line] {
        guard let answer = pane.fleetEngine else { return [] }
        var lines: [Line]
        if answer.succeeded {
            lines = [
                Line(
                    label: "Fleet Eng.",
                    [("✓ ", .ok), (answer.summary, .text), ("  " + Format.milliseconds(answer.latency), .dim)])
            ]
        } else {
            let (mark, role): (String, StyleRole) = answer.tokenVerdict == .refused ? ("✗ ", .error) : ("! ", .warning)
            lines = Self.wrapped(
                "Fleet Eng.", mark + answer.summary, role: role, width: width, maxLines: errorLines(room))
        }
        if answer.verdictDisagrees {
            let rules = answer.tokenVerdict == .refused ? "passed" : "failed"
            lines.append(Line(label: "", [("⚠ disagrees with tokendash's rules, which \(rules) this token", .error)]))
        }
        return lines
    }

    /// The backend's clock against this machine's, when its response had a `Date` header, and
    /// the token's `iat` against the backend's clock: the two numbers that explain a skew refusal.
    /// The level is the `clock` rule's (`TokenRules.clock`), so the pane and the rule agree on skew.
    private var clockLine: (Line, RuleLevel)? {
        guard let token = pane.token, let skew = token.clockSkew,
            let rule = token.findings.last(where: { $0.rule == .clock })
        else { return nil }
        let serverTime = token.receivedAt.addingTimeInterval(-skew)
        let iat = token.jwt.claims["iat"]?.intValue.map { Double($0) - serverTime.timeIntervalSince1970 }
        func signed(_ t: TimeInterval) -> String {
            let n = InputBounds.wholeSeconds(t.rounded())
            return n > 0 ? "+\(n)" : n < 0 ? "−\(-n)" : "0"
        }
        // Short enough for an 80-column pane: the signs say which way, the label says which clocks.
        var segments: [(String, StyleRole)] = [("skew \(signed(skew)) s", .text)]
        if let iat { segments.append((", iat \(signed(iat)) s", .text)) }
        segments.append((" vs backend", .dim))
        if rule.level == .ok {
            segments.append((" (Date header)", .dim))
        } else if abs(skew) >= TokenRules.refusedSkew {
            segments.append(("  refused past \(Int(TokenRules.refusedSkew)) s", .error))
        } else {
            segments.append(("  clock skew", .warning))
        }
        return (Line(label: "Clock", segments), rule.level)
    }

    private func countersLine(width: Int) -> Line {
        let c = pane.counters
        // A tap sees fetches, not cache hits: the ID's last hour as its ledger counts it, read at
        // the frame's time, so fetches after Enter and the hour moving on both show.
        let text =
            pane.tapped.map { tapped in
                let counts = tapped.counts
                return "fetches \(counts.fetches(now: view.now))  tokens \(counts.tokens(now: view.now))  "
                    + (counts.fetchesPerToken(now: view.now).map { "\(TappedCounts.times($0)) per token  " } ?? "")
            } ?? "req \(c.requests)  hits \(c.hits)  ratio \(Format.percent(c.hitRatio))  err \(c.errors)  "
        let sparkWidth = max(0, min(30, width - Self.labelWidth - text.count - 9))
        var segments: [(String, StyleRole)] = [(text, c.errors > 0 ? .warning : .text)]
        if sparkWidth >= 5 {
            segments.append((Sparkline.text(pane.fetchesPerMinute, now: view.now, minutes: sparkWidth), .gaugeFresh))
            segments.append((" fetch/m", .dim))
        }
        return Line(label: "Counters", segments)
    }

    private func claimLines(full: Bool) -> [Line] {
        guard let token = pane.token else { return [] }
        let claims = token.jwt.claims
        let times =
            "\(claims["iat"]?.intValue.map { Format.clock(Date(timeIntervalSince1970: TimeInterval($0)), view.timeZone) } ?? "?")"
            + " → \(claims["exp"]?.intValue.map { Format.clock(Date(timeIntervalSince1970: TimeInterval($0)), view.timeZone) } ?? "?")"
        let authorization = pane.authorizationText ?? "missing"
        if !full { return [Line(label: "Claims", [("authorization \(authorization)  iat/exp \(times)", .text)])] }
        return [
            Line(label: "iss", [(claims["iss"]?.stringValue ?? "missing", .text)]),
            Line(label: "aud", [(claims["aud"]?.stringValue ?? claims["aud"]?.description ?? "missing", .text)]),
            Line(label: "auth", [(authorization, .text)]),
            Line(label: "iat → exp", [(times, .text)]),
        ]
    }

    /// `── Title ─────…` across the pane: drawn as cells, it costs no string per frame.
    static func rule(_ title: String, width: Int) -> Line {
        var cells = [Cell](repeating: Cell("─", role: .border), count: max(0, width))
        for (i, scalar) in " \(title) ".unicodeScalars.enumerated() where i + 2 < cells.count {
            cells[i + 2].scalar = scalar
        }
        return Line(label: nil, cells: cells)
    }

    private func historyLines(_ count: Int, width: Int) -> [Line] {
        guard !pane.history.isEmpty else { return [Line([("no ID changes yet", .dim)])] }
        // Each side of "old → new" gets half the room, cut in its middle, so the new ID stays in view.
        let side = max(5, (width - 10 - 3) / 2)
        return pane.history.prefix(count).map { change in
            Line([
                (Format.clock(change.time, view.timeZone) + "  ", .dim),
                ("\(Format.elideMiddle(change.from ?? "none", side)) → \(Format.elideMiddle(change.to, side))", .text),
            ])
        }
    }

    /// The log's newest `count` entries, a line each. With a memo, an entry drawn in the frame
    /// before (at its place, or one down when a new one came first) is copied as its cells: most
    /// of a log is the same from frame to frame, and making its lines was a fifth of a pane.
    private func logLines(_ count: Int, width: Int) -> [Line] {
        guard count > 0 else { return [] }
        guard !pane.logIsEmpty else { return [Line([("no fetches yet", .dim)])] }
        let entries = pane.newestLog(count)
        guard let memo else { return entries.map(logLine) }
        // Rows drawn at another width or in another zone are not these rows.
        let before = memo.logRows[pane.kind].flatMap { $0.width == width && $0.timeZone == view.timeZone ? $0 : nil }
        let (run, older) = pane.logParts
        if let before, let rows = Self.sameOlder(before, run: run, older: older, entries: entries) {
            // Only the run of hits changed (the SDK's every call): its row is drawn, the rest kept.
            var rows = rows
            if let run, before.entries.first != run { rows[0] = logRow(run, width: width) }
            memo.logRows[pane.kind] = RenderMemo.LogRows(
                width: width, timeZone: view.timeZone, entries: entries, rows: rows, older: older)
            return rows.map { Line(label: nil, cells: $0) }
        }
        var rows: [[Cell]] = []
        rows.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            if let before {
                let old = before.entries
                if index < old.count, old[index] == entry {
                    rows.append(before.rows[index])
                    continue
                }
                if index > 0, index - 1 < old.count, old[index - 1] == entry {
                    rows.append(before.rows[index - 1])
                    continue
                }
            }
            rows.append(logRow(entry, width: width))
        }
        memo.logRows[pane.kind] = RenderMemo.LogRows(
            width: width, timeZone: view.timeZone, entries: entries, rows: rows, older: older)
        return rows.map { Line(label: nil, cells: $0) }
    }

    /// The rows drawn before, when the entries under the run of hits are the very array drawn
    /// then (an array shared is never changed in place), the run is still on top, and as many
    /// rows are shown; nil otherwise.
    private static func sameOlder(_ before: RenderMemo.LogRows, run: LogEntry?, older: [LogEntry], entries: [LogEntry])
        -> [[Cell]]?
    {
        guard before.rows.count == entries.count, (run == nil) == (before.entries.first?.level != .hit),
            older.count == before.older.count
        else { return nil }
        let same = older.withUnsafeBufferPointer { now in
            before.older.withUnsafeBufferPointer { then in now.baseAddress == then.baseAddress }
        }
        return same ? before.rows : nil
    }

    /// One entry's row of cells: only its text, the blank cells after it are the pane's own.
    private func logRow(_ entry: LogEntry, width: Int) -> [Cell] {
        var row = Canvas(width: width, height: 1)
        logLine(entry).draw(&row, x: 0, y: 0, width: width)
        let text = row.cells.lastIndex { $0 != Cell() }.map { $0 + 1 } ?? 0
        return Array(row.cells[..<text])
    }

    private func logLine(_ entry: LogEntry) -> Line {
        let role: StyleRole =
            switch entry.level {
            case .hit: .logHit
            case .info: .logInfo
            case .warning: .logWarning
            case .error: .logError
            }
        let event = entry.count > 1 ? "\(entry.event.label) ×\(entry.count)" : entry.event.label
        var detail = entry.detail
        if let at = entry.at { detail += " " + Format.clock(at, view.timeZone) }
        if let fingerprint = entry.fingerprint { detail += "  #" + fingerprint }
        return Line(
            columns: [
                Column(text: Format.clock(entry.time, view.timeZone), role: .dim, width: 8, gap: 2),
                Column(text: event, role: role, width: 14),
                Column(
                    text: entry.latency.map(Format.milliseconds) ?? "", role: .dim, width: 8, right: true, gap: 2),
            ], [(detail, role)])
    }
}
