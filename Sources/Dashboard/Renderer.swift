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
        var canvas = Canvas(width: width, height: height)
        guard width >= compactWidth, height >= compactHeight else {
            drawTooSmall(&canvas)
            return canvas
        }
        drawHeader(state, &canvas)
        var top = 1
        if let message = state.message {
            canvas.putTruncated(" ! \(message)", x: 0, y: top, width: width, role: .warning)
            top += 1
        }
        if state.isFleet {
            top += drawFleetRows(state, &canvas, y: top)
        }
        let footer = footerRows(state, width: width)
        for frame in paneFrames(state, width: width, height: height) {
            PaneRenderer(state: state, pane: state[frame.kind]).draw(&canvas, x: frame.x, y: frame.y, width: frame.width, height: frame.height)
        }
        drawFooter(footer, &canvas)
        OverlayRenderer(state: state).draw(&canvas)
        return canvas
    }

    /// Where each pane sits on a screen of this size: what `render` draws, and what a click hits.
    public static func paneFrames(_ state: DashboardState, width: Int, height: Int) -> [PaneFrame] {
        guard width >= compactWidth, height >= compactHeight else { return [] }
        let top = 1 + (state.message == nil ? 0 : 1) + (state.isFleet ? 1 + state.kinds.count : 0)
        let bottom = height - footerRows(state, width: width).count
        if width < minimumWidth || height < minimumHeight || state.only != nil {
            // One pane, the focused one, with the room two would share.
            return [PaneFrame(kind: state.focus, x: 0, y: top, width: width, height: bottom - top)]
        }
        if width >= sideBySideWidth {
            let left = width / 2
            return [PaneFrame(kind: state.consumer.kind, x: 0, y: top, width: left, height: bottom - top),
                    PaneFrame(kind: state.driver.kind, x: left, y: top, width: width - left, height: bottom - top)]
        }
        let upper = (bottom - top) / 2
        return [PaneFrame(kind: state.consumer.kind, x: 0, y: top, width: width, height: upper),
                PaneFrame(kind: state.driver.kind, x: 0, y: top + upper, width: width, height: bottom - top - upper)]
    }

    public struct PaneFrame: Equatable, Sendable {
        public var kind: ProviderKind
        public var x, y, width, height: Int

        func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
    }

    static func drawTooSmall(_ canvas: inout Canvas) {
        let lines = [
            "Terminal too small",
            "current \(canvas.width)x\(canvas.height), need \(compactWidth)x\(compactHeight)",
            "enlarge the window, or press q to quit",
        ]
        let top = max(0, canvas.height / 2 - 1)
        for (i, line) in lines.enumerated() {
            let x = max(0, (canvas.width - line.count) / 2)
            canvas.put(line, x: x, y: top + i, role: i == 0 ? .error : .text)
        }
    }

    static func drawHeader(_ state: DashboardState, _ canvas: inout Canvas) {
        canvas.fill(x: 0, y: 0, width: canvas.width, height: 1, role: .header)
        var rest = ["theme: \(state.themeName)\(state.colorless && state.themeName != "mono" ? " (no colour)" : "")",
                    state.paused ? "‖ paused" : "● live"]
        let clock = Format.clock(state.now, state.timeZone)
        // Red, beside the clock, where a demo's audience looks: an injected fault is not the backend's own doing.
        var warnings: [String] = []
        if state.insecure { warnings.append("⚠ TLS NOT VERIFIED") }
        if state.reveal { warnings.append("REVEALED") }
        if !state.activeFaults.isEmpty { warnings.append("⚠ FAULT \(state.activeFaultsText) (c clears)") }
        // At most what leaves "tokendash" in view; cut at its end, so "⚠ FAULT" itself always shows.
        var warning = warnings.joined(separator: " ")
        let warningRoom = canvas.width - clock.count - 14
        if warning.count > warningRoom { warning = String(warning.prefix(max(0, warningRoom - 1))) + "…" }
        let room = canvas.width - clock.count - 2 - (warning.isEmpty ? 0 : warning.count + 1)
        // Long backend URLs give way, so theme and live/paused always show.
        let fixed = " tokendash │  │ ".count + rest.joined(separator: " │ ").count
        var backend = state.backend
        let backendRoom = max(8, room - fixed)
        if backend.count > backendRoom { backend = String(backend.prefix(backendRoom - 1)) + "…" }
        let parts = ["tokendash", backend] + rest
        canvas.putTruncated(" " + parts.joined(separator: " │ "), x: 0, y: 0, width: room, role: .header)
        if !warning.isEmpty { canvas.put(warning, x: room, y: 0, role: .error) }
        canvas.put(clock, x: canvas.width - clock.count - 1, y: 0, role: .header)
    }

    /// htop-style key hints, on as many rows as they need up to two, so every key shows at 80
    /// columns. Only when two rows are not enough do hints drop from the middle of the table;
    /// help and quit always stay.
    static func footerRows(_ state: DashboardState, width: Int) -> [[KeyBinding]] {
        // t and v switch the consumer-side and driver-side IDs: named for the kinds that run
        // ("Tracking" and "Delivery" under --solution last-mile).
        var bindings = KeyBinding.visible(fleet: state.isFleet).map { binding -> KeyBinding in
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
        while rows(bindings).count > 2,
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

    /// The aggregate rows of a fleet run; returns the rows used.
    static func drawFleetRows(_ state: DashboardState, _ canvas: inout Canvas, y: Int) -> Int {
        let header = "fleet          SDKs    req/s   hit ratio  errors   p50 ms   p99 ms  expiring <60 s  following"
        canvas.putTruncated(" " + header, x: 0, y: y, width: canvas.width, role: .title)
        for (row, kind) in state.kinds.enumerated() {
            let pane = state[kind]
            let s = state.fleet[kind]
            let name = switch kind {
            case .consumer: "trips"
            case .driver: "vehicles"
            case .deliveryConsumer: "shipments"
            case .deliveryDriver: "delivery vans"
            }
            let cells = [
                name.fitted(12),
                String(pane.memberCount).leftPadded(6, with: " "),
                (s.map { String(format: "%.1f", $0.requestsPerSecond) } ?? "–").leftPadded(8, with: " "),
                Format.percent(s?.counters.hitRatio).leftPadded(11, with: " "),
                String(s?.counters.errors ?? 0).leftPadded(7, with: " "),
                (s?.p50LatencyMs.map { String(format: "%.1f", $0) } ?? "–").leftPadded(8, with: " "),
                (s?.p99LatencyMs.map { String(format: "%.1f", $0) } ?? "–").leftPadded(8, with: " "),
                String(s?.expiringWithinMinute ?? 0).leftPadded(15, with: " "),
                "  \(pane.id) (\(pane.memberIndex + 1)/\(pane.memberCount))",
            ]
            let role: StyleRole = (s?.counters.errors ?? 0) > 0 ? .warning : .text
            canvas.putTruncated(" " + cells.joined(separator: " "), x: 0, y: y + 1 + row, width: canvas.width, role: role)
        }
        return 3
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
