import Foundation
import UICore

/// What the header draws: the session's backend and state, the viewer's theme, and the warnings.
/// Its renderer takes this and nothing else.
struct HeaderView {
    let backend: String
    let themeName: String
    let colorless: Bool
    /// Live, paused, frozen or the replay's position.
    let status: String
    let now: Date
    let timeZone: TimeZone
    /// What a demo's audience must not miss, in the order shown.
    let warnings: [String]

    init(_ state: DashboardState) {
        backend = state.backend
        themeName = state.themeName
        colorless = state.colorless
        var status =
            state.freezeBadge != nil
            ? "❄ frozen" : state.replay.map { $0.text(state.timeZone) } ?? (state.paused ? "‖ paused" : "● live")
        // A tap's finding, where the eye lands first: how many IDs churn, all kinds'.
        let churning = state.kinds.reduce(0) { $0 + (state.fleetTables[$1]?.tally?.churning ?? 0) }
        if churning > 0 { status += " · \(churning) churning" }
        now = state.now
        timeZone = state.timeZone
        var warnings: [String] = []
        if state.insecure { warnings.append("⚠ TLS NOT VERIFIED") }
        if let badge = state.freezeBadge { warnings.append(badge) }
        if state.reveal { warnings.append("REVEALED") }
        if !state.activeFaults.isEmpty {
            warnings.append("⚠ FAULT \(state.activeFaultsText) (\(state.keys.label(.clearFaults)) clears)")
        }
        self.warnings = warnings
        self.status = status
    }
}

/// The header row: the backend, the theme, live/paused/replay, and in red beside the clock
/// what a demo's audience must not miss (faults, TLS off, a freeze, revealed tokens).
enum HeaderRenderer {
    static func draw(_ view: HeaderView, _ canvas: inout Canvas, in rect: Rect) {
        canvas.fill(x: rect.x, y: rect.y, width: rect.width, height: 1, role: .header)
        let status = view.status
        var rest = [
            "theme: \(view.themeName)\(view.colorless && view.themeName != "mono" ? " (no colour)" : "")", status,
        ]
        let clock = Format.clock(view.now, view.timeZone)
        // Red, beside the clock, where a demo's audience looks: an injected fault is not the backend's own doing.
        var warning = view.warnings.joined(separator: " ")
        // At most what leaves "tokendash" in view; cut at its end, so "⚠ FAULT" itself always shows.
        let warningRoom = rect.width - clock.count - 14
        if warning.count > warningRoom { warning = String(warning.prefix(max(0, warningRoom - 1))) + "…" }
        let room = rect.width - clock.count - 2 - (warning.isEmpty ? 0 : warning.count + 1)
        // Long backend URLs give way, then the theme's name, so live, paused or the replay's
        // position always shows.
        if " tokendash │ 12345678 │ ".count + rest.joined(separator: " │ ").count > room { rest = [status] }
        let fixed = " tokendash │  │ ".count + rest.joined(separator: " │ ").count
        let backend = Self.fitBackend(view.backend, room: max(8, room - fixed))
        let parts = ["tokendash", backend] + rest
        canvas.putTruncated(" " + parts.joined(separator: " │ "), x: rect.x, y: rect.y, width: room, role: .header)
        if !warning.isEmpty { canvas.put(warning, x: rect.x + room, y: rect.y, role: .error) }
        canvas.put(clock, x: rect.x + rect.width - clock.count - 1, y: rect.y, role: .header)
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
}
