import Fleet
import FleetTables
import Foundation
import Pacing
import ProviderVocabulary
import UICore

/// What the fleet rows draw: each kind's size and summary, and the ramp's pace. Their renderer
/// takes this and nothing else, so it cannot reach the panes or the table.
struct FleetRowsView {
    struct Kind {
        var kind: ProviderKind
        var fleetSize: Int
        var summary: FleetSummary?
        /// A tap's counts of the kind's real IDs; nil for simulated SDKs.
        var tally: TapTally?
    }

    let kinds: [Kind]
    let rampPace: Pacer.Status?
    /// The rows are a tap's real devices: fetches and verdicts, not cache hits and cache states.
    let tapped: Bool

    init(_ state: DashboardState) {
        kinds = state.kinds.map {
            Kind(
                kind: $0, fleetSize: state[$0].fleetSize, summary: state.fleet[$0],
                tally: state.session.fleetTables[$0]?.tally)
        }
        rampPace = state.session.rampPace
        tapped = state.watchesRealDevices
    }

    /// While a `--ramp` is still starting SDKs: how many of all the kinds' SDKs have started.
    var startedSDKs: (started: Int, total: Int)? {
        let summaries = kinds.compactMap(\.summary)
        guard summaries.contains(where: \.isStarting) else { return nil }
        return (summaries.reduce(0) { $0 + $1.started }, summaries.reduce(0) { $0 + $1.providers })
    }
}

/// The fleet's aggregate rows under the header: one per kind.
enum FleetRowsRenderer {
    /// The fleet rows' columns: header, width, and whether the value is right-aligned.
    static let columns: [(String, Int)] =
        [
            ("fleet (60 s)", 13), ("SDKs", 6), ("req/s", 7), ("hit ratio", 9), ("errors", 6), ("err rate", 8),
            ("p50 ms", 7), ("p99 ms", 7), ("refresh due", 11),
        ] + MemberStatus.allCases.map { ($0.label, max(5, $0.label.count)) }

    /// Lines the fleet rows take: a header and one per kind, in a fleet, and the ramp's line while
    /// SDKs are still starting; what the layout leaves them.
    static func rowCount(_ state: DashboardState) -> Int {
        guard state.isFleet else { return 0 }
        let view = FleetRowsView(state)
        return 1 + view.kinds.count + (view.startedSDKs == nil ? 0 : 1)
    }

    /// A tap's columns: what it sees of real devices. Fetches, churn and verdicts are the last
    /// hour's (the ledger's); the error columns count IDs by the class of their last fetch's
    /// failure, churning or not (a device retrying a refusal is one ID), and say so; latencies
    /// the last minute's upstream answers; `unread` the exchanges forwarded but not read since
    /// the tap started. No hit ratio or cache states: a tap sees fetches, not cache hits.
    static let tapColumns: [(String, Int)] = [
        ("tap (1 h)", 13), ("devices", 7), ("fetches/h", 9), ("churning", 8), ("p50 ms", 7), ("p99 ms", 7),
        ("IDs fail", 8), ("IDs http err", 12), ("IDs unreachable", 15), ("IDs unreadable", 14), ("unread", 6),
    ]

    /// The aggregate rows of a fleet run. Rates, ratios, errors and latencies cover the last
    /// 60 s; the state counts are every member's now.
    static func draw(_ view: FleetRowsView, _ canvas: inout Canvas, in rect: Rect) {
        let y = rect.y
        let columns = view.tapped ? Self.tapColumns : Self.columns
        let headers = columns.enumerated().map { i, column in
            i == 0 ? column.0.fitted(column.1) : column.0.leftPadded(column.1, with: " ")
        }
        canvas.putTruncated(" " + headers.joined(separator: " "), x: rect.x, y: y, width: rect.width, role: .title)
        for (row, entry) in view.kinds.enumerated() {
            let cells = view.tapped ? tapCells(entry) : sdkCells(entry)
            drawRow(cells, columns: columns, &canvas, in: rect, y: y + 1 + row)
        }
        if let (started, total) = view.startedSDKs {
            // The pace first: when the backend holds the ramp back, that is the news.
            let rest =
                view.rampPace.map { ", ramp \($0.summary()); the rest have made no call yet" }
                ?? " (the rest have made no call yet)"
            canvas.putTruncated(
                " started \(started)/\(total) SDKs\(view.rampPace.map(Self.held) ?? "")\(rest)",
                x: rect.x, y: y + 1 + view.kinds.count, width: rect.width, role: .warning)
        }
    }

    /// One kind's row of a simulated fleet: its SDKs' calls and cache states.
    private static func sdkCells(_ entry: FleetRowsView.Kind) -> [(String, StyleRole)] {
        let s = entry.summary
        let errors = s?.window.errors ?? 0
        var cells: [(String, StyleRole)] = [
            (entry.kind.spec.fleetNoun, .text),
            (String(entry.fleetSize), .text),
            (s.map { Format.tenths($0.requestsPerSecond) } ?? "–", .text),
            (Format.percent(s?.window.hitRatio), .text),
            // Coloured by the last minute only: an error long ago does not keep the row yellow.
            (String(errors), errors > 0 ? .warning : .text),
            (s?.errorRate.map { Format.tenths($0 * 100) + "%" } ?? "–", errors > 0 ? .warning : .text),
            (s?.p50LatencyMs.map(Format.tenths) ?? "–", .text),
            (s?.p99LatencyMs.map(Format.tenths) ?? "–", .text),
            (String(s?.inRefreshMargin ?? 0), .text),
        ]
        for status in MemberStatus.allCases {
            let n = s?.states[status] ?? 0
            cells.append((String(n), n > 0 ? status.role : .text))
        }
        return cells
    }

    /// One kind's row of a tap: its real IDs, their fetches, churn and verdicts.
    private static func tapCells(_ entry: FleetRowsView.Kind) -> [(String, StyleRole)] {
        let t = entry.tally
        func count(_ n: Int?, _ role: StyleRole) -> (String, StyleRole) {
            (n.map(String.init) ?? "–", (n ?? 0) > 0 ? role : .text)
        }
        return [
            (entry.kind.spec.fleetNoun, .text),
            (String(entry.fleetSize), .text),
            (t.map { String($0.fetches) } ?? "–", .text),
            count(t?.churning, .warning),
            (entry.summary?.p50LatencyMs.map(Format.tenths) ?? "–", .text),
            (entry.summary?.p99LatencyMs.map(Format.tenths) ?? "–", .text),
            count(t?.ids(lastVerdict: "fail"), .error),
            count(t?.ids(lastVerdict: "http_error"), .error),
            count(t?.ids(lastVerdict: "unreachable"), .error),
            count(t?.ids(lastVerdict: "unreadable"), .error),
            count(t?.unread, .warning),
        ]
    }

    /// `cells` under `columns`' headers: the first left-aligned, the rest right; what does not
    /// fit is cut with a mark, as a truncated line is.
    private static func drawRow(
        _ cells: [(String, StyleRole)], columns: [(String, Int)], _ canvas: inout Canvas, in rect: Rect, y line: Int
    ) {
        var x = rect.x + 1
        for (i, (text, role)) in cells.enumerated() {
            let width = columns[i].1
            let shown = i == 0 ? text.fitted(width) : text.leftPadded(width, with: " ")
            guard x + width + (i == cells.count - 1 ? 0 : 1) <= rect.x + rect.width else {
                canvas.putTruncated(shown + " ", x: x, y: line, width: rect.x + rect.width - x, role: role)
                break
            }
            x += canvas.put(shown, x: x, y: line, role: role) + 1
        }
    }

    /// While every call the window lets out is unanswered, no SDK can start: the ramp is not slow,
    /// it is held, and that comes first, where a narrow terminal still shows it.
    static func held(_ pace: Pacer.Status) -> String {
        guard pace.window != .max, pace.inFlight >= pace.window else { return "" }
        return ", held: \(pace.window) call\(pace.window == 1 ? "" : "s") unanswered"
    }
}
