import Fleet

/// One kind's fleet table as the dashboard holds it: the aggregate's latest rows, the filter the
/// user applied and the selected member. The filter lives here; the aggregate is told it by an
/// effect (`Effect.setTableFilter`), so it searches all members, not just the rows it sent.
public struct MemberTable: Equatable, Sendable {
    /// The latest table the aggregate made under `filter`.
    public var latest = FleetTable()
    /// The ID substring the table is cut to; empty for every member.
    public var filter = ""
    /// The selected member, by index; nil selects the first row.
    public var selected: Int?

    public init() {}

    /// The rows shown: the latest, and until the aggregate answers a new filter, those of them
    /// the filter keeps.
    public var rows: [FleetMemberRow] {
        latest.filter == filter ? latest.rows : latest.rows.filter { FleetTable.matches($0.id, filter) }
    }

    /// The selected row's position in `rows`: the selected member's, else the first.
    public func selectedRow(in rows: [FleetMemberRow]) -> Int? {
        guard !rows.isEmpty else { return nil }
        return selected.flatMap { member in rows.firstIndex { $0.index == member } } ?? 0
    }
}
