import UICore
import Fleet
import FleetAuth
import Foundation

/// `render(state, size) -> Canvas`: the whole screen, drawn from the state alone.
public enum Renderer {
    public static let minimumWidth = 80
    public static let minimumHeight = 24
    /// Down to this size the focused pane alone fills the screen (Tab switches); below it, the
    /// "too small" screen.
    public static let compactWidth = 60
    public static let compactHeight = 16
    /// Below this width the panes stack instead of standing side by side.
    public static let sideBySideWidth = 120

    public static func render(_ state: DashboardState, width: Int, height: Int) -> Canvas {
        if let frozen = state.frozen { return render(frozen.shown(over: state), width: width, height: height) }
        var canvas = Canvas(width: width, height: height)
        guard width >= compactWidth, height >= compactHeight else {
            drawTooSmall(&canvas, quitKey: state.keys.label(.quit))
            return canvas
        }
        drawHeader(state, &canvas)
        var top = 1
        for line in state.scenarioBannerLines(width: width) {
            canvas.fill(x: 0, y: top, width: width, height: 1, role: .selected)
            canvas.putTruncated(" " + line, x: 0, y: top, width: width, role: .selected)
            top += 1
        }
        if let message = state.message {
            canvas.putTruncated(" ! \(message)", x: 0, y: top, width: width, role: .warning)
            top += 1
        }
        if state.isFleet {
            top += drawFleetRows(state, &canvas, y: top)
        }
        let footer = footerRows(state, width: width)
        let frames = layout(state, width: width, height: height)
        if let table = frames.table {
            MemberTableRenderer(state: state).draw(&canvas, x: table.x, y: table.y, width: table.width, height: table.height)
        }
        for frame in frames.panes {
            PaneRenderer(state: state, pane: state[frame.kind]).draw(&canvas, x: frame.x, y: frame.y, width: frame.width, height: frame.height)
        }
        drawFooter(footer, &canvas)
        OverlayRenderer(state: state).draw(&canvas)
        return canvas
    }

    /// Where the panes and, in a fleet, the focused kind's member table sit on a screen of this
    /// size: what `render` draws, and what a click hits.
    public static func layout(_ state: DashboardState, width: Int, height: Int) -> Layout {
        guard width >= compactWidth, height >= compactHeight else { return Layout() }
        var top = 1 + state.scenarioBannerLines(width: width).count + (state.message == nil ? 0 : 1) + fleetRowCount(state)
        let bottom = height - footerRows(state, width: width).count
        var result = Layout()
        let single = width < minimumWidth || height < minimumHeight || state.only != nil
        if state.isFleet {
            let room = bottom - top
            if single || (width < sideBySideWidth && room < tallStack) {
                // Not enough height for two panes and a table: the focused pane, the table under it.
                let paneHeight = max(PaneRenderer.essentialHeight, room / 2)
                result.panes = [PaneFrame(kind: state.focus, x: 0, y: top, width: width, height: paneHeight)]
                result.table = PaneFrame(kind: state.focus, x: 0, y: top + paneHeight, width: width, height: room - paneHeight)
                return result
            }
            // A band across the top of the panes.
            let band = min(14, max(6, room / 4 + 2))
            result.table = PaneFrame(kind: state.focus, x: 0, y: top, width: width, height: band)
            top += band
        }
        if single {
            // One pane, the focused one, with the room two would share.
            result.panes = [PaneFrame(kind: state.focus, x: 0, y: top, width: width, height: bottom - top)]
        } else if width >= sideBySideWidth {
            let left = width / 2
            result.panes = [PaneFrame(kind: state.consumer.kind, x: 0, y: top, width: left, height: bottom - top),
                            PaneFrame(kind: state.driver.kind, x: left, y: top, width: width - left, height: bottom - top)]
        } else {
            let upper = (bottom - top) / 2
            result.panes = [PaneFrame(kind: state.consumer.kind, x: 0, y: top, width: width, height: upper),
                            PaneFrame(kind: state.driver.kind, x: 0, y: top + upper, width: width, height: bottom - top - upper)]
        }
        return result
    }

    public struct Layout: Equatable, Sendable {
        public var panes: [PaneFrame] = []
        /// The fleet's member table; its `kind` is the kind it lists.
        public var table: PaneFrame?
    }

    public struct PaneFrame: Equatable, Sendable {
        public var kind: ProviderKind
        public var x, y, width, height: Int

        func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
    }

    /// Below this many rows for the body, stacked panes and a fleet table do not all fit: the
    /// table takes the place of the pane not focused.
    static let tallStack = 30

    static func drawTooSmall(_ canvas: inout Canvas, quitKey: String) {
        let lines = [
            "Terminal too small",
            "current \(canvas.width)x\(canvas.height), need \(compactWidth)x\(compactHeight)",
            "enlarge the window, or press \(quitKey) to quit",
        ]
        let top = max(0, canvas.height / 2 - 1)
        for (i, line) in lines.enumerated() {
            let x = max(0, (canvas.width - line.count) / 2)
            canvas.put(line, x: x, y: top + i, role: i == 0 ? .error : .text)
        }
    }

    static func drawHeader(_ state: DashboardState, _ canvas: inout Canvas) {
        canvas.fill(x: 0, y: 0, width: canvas.width, height: 1, role: .header)
        let status = state.freezeBadge != nil ? "❄ frozen" : state.replay.map { $0.text(state.timeZone) } ?? (state.paused ? "‖ paused" : "● live")
        var rest = ["theme: \(state.themeName)\(state.colorless && state.themeName != "mono" ? " (no colour)" : "")", status]
        let clock = Format.clock(state.now, state.timeZone)
        // Red, beside the clock, where a demo's audience looks: an injected fault is not the backend's own doing.
        var warnings: [String] = []
        if state.insecure { warnings.append("⚠ TLS NOT VERIFIED") }
        if let badge = state.freezeBadge { warnings.append(badge) }
        if state.reveal { warnings.append("REVEALED") }
        if !state.activeFaults.isEmpty { warnings.append("⚠ FAULT \(state.activeFaultsText) (\(state.keys.label(.clearFaults)) clears)") }
        // At most what leaves "tokendash" in view; cut at its end, so "⚠ FAULT" itself always shows.
        var warning = warnings.joined(separator: " ")
        let warningRoom = canvas.width - clock.count - 14
        if warning.count > warningRoom { warning = String(warning.prefix(max(0, warningRoom - 1))) + "…" }
        let room = canvas.width - clock.count - 2 - (warning.isEmpty ? 0 : warning.count + 1)
        // Long backend URLs give way, then the theme's name, so live, paused or the replay's
        // position always shows.
        if " tokendash │ 12345678 │ ".count + rest.joined(separator: " │ ").count > room { rest = [status] }
        let fixed = " tokendash │  │ ".count + rest.joined(separator: " │ ").count
        let backend = Self.fitBackend(state.backend, room: max(8, room - fixed))
        let parts = ["tokendash", backend] + rest
        canvas.putTruncated(" " + parts.joined(separator: " │ "), x: 0, y: 0, width: room, role: .header)
        if !warning.isEmpty { canvas.put(warning, x: room, y: 0, role: .error) }
        canvas.put(clock, x: canvas.width - clock.count - 1, y: 0, role: .header)
    }

    /// The backend cut to `room`: the URLs give way before the proxy they go through, so
    /// "via proxy …" stays in view while it fits: which proxy is in the way explains failures.
    static func fitBackend(_ backend: String, room: Int) -> String {
        guard backend.count > room else { return backend }
        if let via = backend.range(of: " via proxy ") {
            let proxy = backend[via.lowerBound...]
            let urlRoom = room - proxy.count - 1
            if urlRoom >= 1 { return String(backend[..<via.lowerBound].prefix(urlRoom)) + "…" + proxy }
        }
        return String(backend.prefix(room - 1)) + "…"
    }

    /// htop-style key hints, on as many rows as they need up to two, so every key shows at 80
    /// columns. Only when two rows are not enough do hints drop from the middle of the table;
    /// help and quit always stay.
    static let maxFooterRows = 3

    static func footerRows(_ state: DashboardState, width: Int) -> [[KeyBinding]] {
        // t and v switch the consumer-side and driver-side IDs: named for the kinds that run
        // ("Tracking" and "Delivery" under --solution last-mile).
        var bindings = state.activeKeys.filter { !$0.inTable }.map { binding -> KeyBinding in
            var named = binding
            if binding.command == .newTrip { named.hint = Self.shortNoun(state.consumer.kind) }
            if binding.command == .newVehicle { named.hint = Self.shortNoun(state.driver.kind) }
            return named
        }
        func rows(_ all: [KeyBinding]) -> [[KeyBinding]] {
            var rows: [[KeyBinding]] = [[]]
            var used = 0
            for binding in all {
                let w = binding.label.count + binding.hint.count + 2
                if used + w > width, !(rows.last?.isEmpty ?? true) {
                    rows.append([])
                    used = 0
                }
                rows[rows.count - 1].append(binding)
                used += w
            }
            return rows
        }
        bindings = KeyBinding.paired(bindings)
        // Three rows only where two cannot hold every key (a fleet at 80 columns): a key that
        // works but shows nowhere would be found by no one.
        while rows(bindings).count > maxFooterRows,
              let drop = bindings.lastIndex(where: { $0.command != .help && $0.command != .quit }) {
            bindings.remove(at: drop)
        }
        return rows(bindings)
    }

    static func drawFooter(_ rows: [[KeyBinding]], _ canvas: inout Canvas) {
        for (i, row) in rows.enumerated() {
            let y = canvas.height - rows.count + i
            canvas.fill(x: 0, y: y, width: canvas.width, height: 1, role: .keyHint)
            var x = 0
            for binding in row {
                x += canvas.put(binding.label, x: x, y: y, role: .keyLabel)
                x += canvas.put(" " + binding.hint + " ", x: x, y: y, role: .keyHint)
            }
        }
    }

    /// A kind's ID noun as a one-word key hint: "Trip", "Vehicle", "Tracking", "Delivery".
    static func shortNoun(_ kind: ProviderKind) -> String {
        let first = kind.idNoun.split(separator: " ").first.map(String.init) ?? kind.idNoun
        return first.prefix(1).uppercased() + first.dropFirst()
    }

    /// A kind's members in the plural, as the fleet rows and the table name them.
    static func fleetNoun(_ kind: ProviderKind) -> String {
        switch kind {
        case .consumer: "trips"
        case .driver: "vehicles"
        case .deliveryConsumer: "shipments"
        case .deliveryDriver: "delivery vans"
        }
    }

    /// The fleet rows' columns: header, width, and whether the value is right-aligned.
    static let fleetColumns: [(String, Int)] = [
        ("fleet (60 s)", 13), ("SDKs", 6), ("req/s", 7), ("hit ratio", 9), ("errors", 6), ("err rate", 8),
        ("p50 ms", 7), ("p99 ms", 7), ("refresh due", 11),
    ] + MemberStatus.allCases.map { ($0.label, max(5, $0.label.count)) }

    /// The aggregate rows of a fleet run; returns the rows used. Rates, ratios, errors and
    /// latencies cover the last 60 s; the state counts are every member's now.
    /// Lines the fleet rows take: a header and one per kind, in a fleet; what the layout leaves them.
    static func fleetRowCount(_ state: DashboardState) -> Int {
        state.isFleet ? 1 + state.kinds.count + (startedSDKs(state) == nil ? 0 : 1) : 0
    }

    /// While a `--ramp` is still starting SDKs: how many of all the kinds' SDKs have started.
    static func startedSDKs(_ state: DashboardState) -> (started: Int, total: Int)? {
        let summaries = state.kinds.compactMap { state.fleet[$0] }
        guard summaries.contains(where: \.isStarting) else { return nil }
        return (summaries.reduce(0) { $0 + $1.started }, summaries.reduce(0) { $0 + $1.providers })
    }

    static func drawFleetRows(_ state: DashboardState, _ canvas: inout Canvas, y: Int) -> Int {
        let headers = fleetColumns.enumerated().map { i, column in i == 0 ? column.0.fitted(column.1) : column.0.leftPadded(column.1, with: " ") }
        canvas.putTruncated(" " + headers.joined(separator: " "), x: 0, y: y, width: canvas.width, role: .title)
        for (row, kind) in state.kinds.enumerated() {
            let pane = state[kind]
            let s = state.fleet[kind]
            let errors = s?.window.errors ?? 0
            var cells: [(String, StyleRole)] = [
                (fleetNoun(kind), .text),
                (String(pane.memberCount), .text),
                (s.map { String(format: "%.1f", $0.requestsPerSecond) } ?? "–", .text),
                (Format.percent(s?.window.hitRatio), .text),
                // Coloured by the last minute only: an error long ago does not keep the row yellow.
                (String(errors), errors > 0 ? .warning : .text),
                (s?.errorRate.map { String(format: "%.1f%%", $0 * 100) } ?? "–", errors > 0 ? .warning : .text),
                (s?.p50LatencyMs.map { String(format: "%.1f", $0) } ?? "–", .text),
                (s?.p99LatencyMs.map { String(format: "%.1f", $0) } ?? "–", .text),
                (String(s?.inRefreshMargin ?? 0), .text),
            ]
            for status in MemberStatus.allCases {
                let n = s?.states[status] ?? 0
                cells.append((String(n), n > 0 ? status.role : .text))
            }
            var x = 1
            let line = y + 1 + row
            for (i, (text, role)) in cells.enumerated() {
                let width = fleetColumns[i].1
                let shown = i == 0 ? text.fitted(width) : text.leftPadded(width, with: " ")
                guard x + width + (i == cells.count - 1 ? 0 : 1) <= canvas.width else {
                    // What does not fit is cut with a mark, as a truncated line is.
                    canvas.putTruncated(shown + " ", x: x, y: line, width: canvas.width - x, role: role)
                    break
                }
                x += canvas.put(shown, x: x, y: line, role: role) + 1
            }
        }
        if let (started, total) = startedSDKs(state) {
            canvas.putTruncated(" started \(started)/\(total) SDKs (the rest have made no call yet)",
                                x: 0, y: y + 1 + state.kinds.count, width: canvas.width, role: .warning)
        }
        return fleetRowCount(state)
    }

    static let sparkBlocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// Fetches per minute over the last `minutes` minutes, oldest first.
    static func sparkline(_ perMinute: [Int: Int], now: Date, minutes: Int) -> String {
        let current = Int(now.timeIntervalSince1970 / 60)
        let counts = ((current - minutes + 1)...current).map { perMinute[$0] ?? 0 }
        let peak = max(1, counts.max() ?? 1)
        return String(counts.map { c in c == 0 ? sparkBlocks[0] : sparkBlocks[max(1, Int((Double(c) / Double(peak) * 8).rounded(.up)))] })
    }
}
