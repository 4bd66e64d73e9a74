import Foundation
import KeyTable
import ProviderVocabulary
import UICore

/// What a drawer that renders frame after frame keeps from one frame for the next: parts made
/// from inputs that rarely change, with those inputs, so a frame is the same with it or without.
/// One per drawer: it is not shared between threads.
public final class RenderMemo {
    var footer: (FooterRenderer.Inputs, [[KeyBinding]])?
    /// Each kind's fetch log as last drawn: its entries and their rows of cells, at a width, in a zone.
    struct LogRows {
        var width: Int
        var timeZone: TimeZone
        var entries: [LogEntry]
        var rows: [[Cell]]
        /// The pane's entries under its run of hits, as they were: while the pane still holds
        /// the same array, only the run's row can have changed.
        var older: [LogEntry]
    }
    var logRows: [ProviderKind: LogRows] = [:]
    /// Each kind's timeline lines as last drawn, with what they were drawn from.
    var timelines: [ProviderKind: (key: TimelineRenderer.Key, lines: [PaneRenderer.Line])] = [:]

    public init() {}
}

/// `render(state, size) -> Canvas`: the whole screen, drawn from the state alone. The layout
/// places each part; each part's renderer draws into its rectangle.
public enum Renderer {
    /// One frame: its cells, and where a click on it lands.
    public struct Frame: Sendable {
        public var canvas: Canvas
        public var clicks: ClickMap
    }

    /// `reusing` is a canvas the caller is done with, drawn over in its memory.
    public static func render(
        _ live: DashboardState, width: Int, height: Int, memo: RenderMemo? = nil, reusing: consuming Canvas? = nil
    ) -> Canvas {
        frame(live, width: width, height: height, memo: memo, reusing: consume reusing).canvas
    }

    /// The screen and its click map, made from one layout so what is hit is what is drawn.
    /// `memo` keeps what one frame made for the next (one drawer's frames, on one thread).
    public static func frame(
        _ live: DashboardState, width: Int, height: Int, memo: RenderMemo? = nil, reusing: consuming Canvas? = nil
    ) -> Frame {
        // Moved out, not bound: a copy would hold the memory too, and the canvas would not reuse it.
        let canvas =
            switch consume reusing {
            case .some(let spare): Canvas(width: width, height: height, reusing: consume spare)
            case .none: Canvas(width: width, height: height)
            }
        // Copied only when frozen: `shown` hands back a copy even when it changes nothing, and
        // copying and freeing the whole state was a twelfth of a cast's rendering.
        if live.viewer.frozen == nil { return draw(live, on: canvas, memo: memo) }
        return draw(live.shown, on: canvas, memo: memo)
    }

    private static func draw(_ state: DashboardState, on blank: consuming Canvas, memo: RenderMemo?) -> Frame {
        var canvas = consume blank
        let (width, height) = (canvas.width, canvas.height)
        guard let layout = Layout.of(state, width: width, height: height, memo: memo) else {
            drawTooSmall(&canvas, quitKey: state.keys.label(.quit))
            return Frame(canvas: canvas, clicks: ClickMap(width: width, height: height))
        }
        HeaderRenderer.draw(HeaderView(state), &canvas, in: layout.header)
        for (i, line) in layout.bannerLines.enumerated() {
            let y = layout.banner.y + i
            canvas.fill(x: layout.banner.x, y: y, width: layout.banner.width, height: 1, role: .selected)
            canvas.putTruncated(" " + line, x: layout.banner.x, y: y, width: layout.banner.width, role: .selected)
        }
        if let message = state.message, let rect = layout.message {
            canvas.putTruncated(" ! \(message)", x: rect.x, y: rect.y, width: rect.width, role: .warning)
        }
        if let rect = layout.fleetRows { FleetRowsRenderer.draw(FleetRowsView(state), &canvas, in: rect) }
        if let table = layout.table { MemberTableRenderer(view: MemberTableView(state)).draw(&canvas, in: table.rect) }
        if let hint = layout.tableHint {
            let line = " \(state.keys.label(.followSelected)) follows an ID: its token, checks and last hour of fetches"
            canvas.putTruncated(line, x: hint.x, y: hint.y, width: hint.width, role: .dim)
        }
        for frame in layout.panes {
            PaneRenderer(view: PaneView(state, kind: frame.kind), memo: memo).draw(&canvas, in: frame.rect)
        }
        FooterRenderer.draw(layout.footerRows, &canvas, in: layout.footer)
        OverlayRenderer.draw(OverlayView(state), &canvas)
        return Frame(canvas: canvas, clicks: ClickMap(state, layout: layout, width: width, height: height))
    }

    /// The screen below `Layout.compactWidth` x `Layout.compactHeight`: what is needed, and how to leave.
    static func drawTooSmall(_ canvas: inout Canvas, quitKey: String) {
        let lines = [
            "Terminal too small",
            "current \(canvas.width)x\(canvas.height), need \(Layout.compactWidth)x\(Layout.compactHeight)",
            "enlarge the window, or press \(quitKey) to quit",
        ]
        let top = max(0, canvas.height / 2 - 1)
        for (i, line) in lines.enumerated() {
            let x = max(0, (canvas.width - line.count) / 2)
            canvas.put(line, x: x, y: top + i, role: i == 0 ? .error : .text)
        }
    }
}
