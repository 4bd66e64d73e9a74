import ProviderVocabulary

/// What a click on the screen can land on: a pane, or a member's row of the fleet table.
public enum ClickTarget: Equatable, Sendable {
    case pane(ProviderKind)
    case member(ProviderKind, index: Int)
}

/// Where each click target sits on one frame. The loop keeps the last frame's map and places a
/// click with it, so a click lands on what the user saw, even when the state moved since (a
/// notice line came, a row sorted up) and before the next frame shows it.
public struct ClickMap: Equatable, Sendable {
    /// The screen's size the map was made for: a map of another size places nothing.
    public let width: Int
    public let height: Int
    private var panes: [PaneFrame] = []
    /// The fleet table's frame and the table as drawn: its rows are placed only when a click
    /// comes, so drawing a frame does not lay out its rows a second time.
    private var table: (frame: PaneFrame, table: MemberTable)?

    init(width: Int, height: Int) {
        (self.width, self.height) = (width, height)
    }

    /// The map of `state` laid out at `width` x `height`, as `Renderer` draws it.
    public static func of(_ state: DashboardState, width: Int, height: Int) -> ClickMap {
        guard let layout = Layout.of(state, width: width, height: height) else {
            return ClickMap(width: width, height: height)
        }
        return ClickMap(state, layout: layout, width: width, height: height)
    }

    init(_ state: DashboardState, layout: Layout, width: Int, height: Int) {
        self.init(width: width, height: height)
        panes = layout.panes
        table = layout.table.map { ($0, state.table($0.kind)) }
    }

    public static func == (a: ClickMap, b: ClickMap) -> Bool {
        a.width == b.width && a.height == b.height && a.panes == b.panes && a.table?.frame == b.table?.frame
            && a.table?.table == b.table?.table
    }

    /// What a click at `x`, `y` lands on, if anything.
    public func target(x: Int, y: Int) -> ClickTarget? {
        if let frame = panes.first(where: { $0.rect.contains(x: x, y: y) }) { return .pane(frame.kind) }
        guard let (frame, table) = table, frame.rect.contains(x: x, y: y) else { return nil }
        let rows = table.rows
        let visible = frame.rect.height - 3
        // Rows start two lines below the table's top (its border, its header).
        let offset = y - (frame.rect.y + 2)
        let row = MemberTableRenderer.firstShown(selected: table.selectedRow(in: rows), visible: visible) + offset
        guard offset >= 0, offset < visible, row < rows.count else { return nil }
        return .member(frame.kind, index: rows[row].index)
    }
}
