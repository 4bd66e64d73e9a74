import KeyTable
import ProviderVocabulary

/// A rectangle of the screen, in cells.
public struct Rect: Equatable, Sendable {
    public var x, y, width, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
}

/// A pane's place, or the fleet table's (its `kind` is the kind it lists).
public struct PaneFrame: Equatable, Sendable {
    public var kind: ProviderKind
    public var rect: Rect
}

/// Where everything sits on a screen of one size: the header, the scenario banner, the notice,
/// the fleet rows, the fleet table, the panes and the key hints. `render` draws each part into
/// its rectangle; a click is placed with the same layout, so what is hit is what is drawn.
public struct Layout: Equatable, Sendable {
    public var header: Rect
    public var banner: Rect
    /// The scenario banner's lines at this width, made once per frame: their count is the banner's height.
    public var bannerLines: [String]
    public var message: Rect?
    public var fleetRows: Rect?
    /// The focused kind's member table, in a fleet.
    public var table: PaneFrame?
    public var panes: [PaneFrame] = []
    /// A tap's line under its table before an ID is followed: what Enter shows.
    public var tableHint: Rect?
    public var footer: Rect
    /// The key hints, row by row: the footer's height is theirs, so they are made once, here.
    public var footerRows: [[KeyBinding]]

    public static let minimumWidth = 80
    public static let minimumHeight = 24
    /// Down to this size the focused pane alone fills the screen (Tab switches); below it, the
    /// "too small" screen.
    public static let compactWidth = 60
    public static let compactHeight = 16
    /// Below this width the panes stack instead of standing side by side.
    public static let sideBySideWidth = 120
    /// Below this many rows for the body, stacked panes and a fleet table do not all fit: the
    /// table takes the place of the pane not focused.
    static let tallStack = 30

    /// Whether the screen is big enough for anything but the "too small" notice.
    public static func fits(width: Int, height: Int) -> Bool { width >= compactWidth && height >= compactHeight }

    /// The layout of `state` on a `width` x `height` screen; nil when it is too small.
    public static func of(_ state: DashboardState, width: Int, height: Int, memo: RenderMemo? = nil) -> Layout? {
        guard fits(width: width, height: height) else { return nil }
        let bannerLines = state.scenarioBannerLines(width: width)
        let fleetLines = FleetRowsRenderer.rowCount(state)
        let footerRows = FooterRenderer.rows(state, width: width, memo: memo)
        var top = 1
        var layout = Layout(
            header: Rect(x: 0, y: 0, width: width, height: 1),
            banner: Rect(x: 0, y: top, width: width, height: bannerLines.count), bannerLines: bannerLines,
            footer: Rect(x: 0, y: height - footerRows.count, width: width, height: footerRows.count),
            footerRows: footerRows)
        top += bannerLines.count
        if state.message != nil {
            layout.message = Rect(x: 0, y: top, width: width, height: 1)
            top += 1
        }
        if fleetLines > 0 {
            layout.fleetRows = Rect(x: 0, y: top, width: width, height: fleetLines)
            top += fleetLines
        }
        let bottom = layout.footer.y
        let single = width < minimumWidth || height < minimumHeight || state.only != nil
        func frame(_ kind: ProviderKind, x: Int = 0, y: Int, width w: Int = width, height h: Int) -> PaneFrame {
            PaneFrame(kind: kind, rect: Rect(x: x, y: y, width: w, height: h))
        }
        if state.isFleet, state.watchesRealDevices {
            layout.tap(state, top: top, bottom: bottom, width: width, single: single)
            return layout
        }
        if state.isFleet {
            let room = bottom - top
            if single || (width < sideBySideWidth && room < tallStack) {
                // Not enough height for two panes and a table: the focused pane, the table under it.
                let paneHeight = max(PaneRenderer.essentialHeight, room / 2)
                layout.panes = [frame(state.focus, y: top, height: paneHeight)]
                layout.table = frame(state.focus, y: top + paneHeight, height: room - paneHeight)
                return layout
            }
            // A band across the top of the panes.
            let band = min(14, max(6, room / 4 + 2))
            layout.table = frame(state.focus, y: top, height: band)
            top += band
        }
        if single {
            // One pane, the focused one, with the room two would share.
            layout.panes = [frame(state.focus, y: top, height: bottom - top)]
        } else if width >= sideBySideWidth {
            let left = width / 2
            layout.panes = [
                frame(state.consumer.kind, y: top, width: left, height: bottom - top),
                frame(state.driver.kind, x: left, y: top, width: width - left, height: bottom - top),
            ]
        } else {
            let upper = (bottom - top) / 2
            layout.panes = [
                frame(state.consumer.kind, y: top, height: upper),
                frame(state.driver.kind, y: top + upper, height: bottom - top - upper),
            ]
        }
        return layout
    }

    /// A tap's screen: its table first. Until the focused kind's ID is followed, the table takes
    /// the room (with a line saying what Enter shows) and no pane is drawn: a pane of no ID says
    /// only `none yet`. Then the table is a band over the panes of the IDs followed.
    private mutating func tap(_ state: DashboardState, top: Int, bottom: Int, width: Int, single: Bool) {
        let room = bottom - top
        func frame(_ kind: ProviderKind, x: Int = 0, y: Int, width w: Int = width, height h: Int) -> PaneFrame {
            PaneFrame(kind: kind, rect: Rect(x: x, y: y, width: w, height: h))
        }
        guard state[state.focus].following else {
            table = frame(state.focus, y: top, height: room - 1)
            tableHint = Rect(x: 0, y: bottom - 1, width: width, height: 1)
            return
        }
        let followed = single ? [state.focus] : state.kinds.filter { state[$0].following }
        if single || width < Self.sideBySideWidth && (room < Self.tallStack || followed.count == 1) {
            // The followed pane, the table under it: the pane is what Enter asked for, with room
            // for the first fetches of its last hour (two thirds: 12 rows of 18 at 80x24).
            let paneHeight = max(PaneRenderer.essentialHeight, room * 2 / 3)
            panes = [frame(state.focus, y: top, height: paneHeight)]
            table = frame(state.focus, y: top + paneHeight, height: room - paneHeight)
            return
        }
        let band = min(14, max(6, room / 4 + 2))
        table = frame(state.focus, y: top, height: band)
        let y = top + band
        if followed.count == 1 || width < Self.sideBySideWidth {
            let each = (bottom - y) / followed.count
            panes = followed.enumerated().map { i, kind in
                frame(kind, y: y + i * each, height: i == followed.count - 1 ? bottom - y - i * each : each)
            }
        } else {
            let left = width / 2
            panes = [
                frame(state.consumer.kind, y: y, width: left, height: bottom - y),
                frame(state.driver.kind, x: left, y: y, width: width - left, height: bottom - y),
            ]
        }
    }
}
