import FleetAuth

/// What a click on the screen can land on: a pane, or a member's row of the fleet table.
public enum ClickTarget: Equatable, Sendable {
    case pane(ProviderKind)
    case member(ProviderKind, index: Int)
}

/// Where each click target sits on one frame. The loop keeps the last frame's map and places a
/// click with it, so a click lands on what the user saw, even when the state moved since (a
/// notice line came, a row sorted up) and before the next frame shows it.
public struct ClickMap: Equatable, Sendable {
    public struct Area: Equatable, Sendable {
        public var rect: Rect
        public var target: ClickTarget
    }

    /// The screen's size the map was made for: a map of another size places nothing.
    public let width: Int
    public let height: Int
    public private(set) var areas: [Area] = []

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
        for frame in layout.panes { areas.append(Area(rect: frame.rect, target: .pane(frame.kind))) }
        if let frame = layout.table {
            let table = state.table(frame.kind)
            let rows = table.rows
            let visible = frame.rect.height - 3
            let first = MemberTableRenderer.firstShown(selected: table.selectedRow(in: rows), visible: visible)
            // Rows start two lines below the table's top (its border, its header).
            for (offset, row) in rows.dropFirst(first).prefix(max(0, visible)).enumerated() {
                let rect = Rect(x: frame.rect.x, y: frame.rect.y + 2 + offset, width: frame.rect.width, height: 1)
                areas.append(Area(rect: rect, target: .member(frame.kind, index: row.index)))
            }
        }
    }

    /// What a click at `x`, `y` lands on, if anything.
    public func target(x: Int, y: Int) -> ClickTarget? {
        areas.first { $0.rect.contains(x: x, y: y) }?.target
    }
}
