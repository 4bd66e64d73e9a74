import Fleet
import FleetTables

/// The viewer's query on one kind's fleet table: the filter and the selected member. The filter
/// lives here and only here; each request for tables brings it (`Effect.queryTables`), so the
/// aggregate searches all members, not just the rows it sent, and keeps no copy of it.
public struct TableQuery: Equatable, Sendable {
    /// The ID substring the table is cut to; empty for every member.
    public var filter = ""
    /// The selected member, by index; nil selects the first row.
    public var selected: Int?

    public init(filter: String = "", selected: Int? = nil) {
        self.filter = filter
        self.selected = selected
    }
}

/// One kind's fleet table as drawn: the aggregate's latest rows (the session's) under the
/// viewer's query.
public struct MemberTable: Equatable, Sendable {
    /// The latest table the aggregate made under `filter`.
    public var latest: FleetTable
    public var query: TableQuery

    public init(latest: FleetTable = FleetTable(), query: TableQuery = TableQuery()) {
        self.latest = latest
        self.query = query
    }

    public var filter: String { query.filter }
    public var selected: Int? { query.selected }

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
