import Fleet
import FleetTables
import Foundation
import KeyTable
import ProviderVocabulary
import UICore

/// The focused kind's fleet table: each member's ID, state, time to expiry, requests and last
/// error, trouble first; the selected row highlighted, the followed member marked `▶`, the
/// table's keys on its lower border.
struct MemberTableRenderer {
    let view: MemberTableView

    static let stateWidth = MemberStatus.allCases.map(\.label.count).max() ?? 11
    static let expiresWidth = 12
    static let requestsWidth = 8
    /// `PERMISSION_DENIED`, the longest status an SDK's call usually gets.
    static let fleetEngineWidth = 17
    /// Narrower than this, the Fleet Engine column gives way: the last error says more about a
    /// failing member, and the pane shows the followed member's answer.
    static let fleetEngineFromWidth = 100

    func draw(_ canvas: inout Canvas, in rect: Rect) {
        let (x, y, width, height) = (rect.x, rect.y, rect.width, rect.height)
        guard width >= 20, height >= 4 else { return }
        let kind = view.kind
        let table = view.table
        let rows = table.rows
        canvas.box(
            x: x, y: y, width: width, height: height, title: title(kind, table), role: .border, titleRole: .title)
        let inner = width - 4
        let left = x + 2
        let visible = height - 3
        let selected = table.selectedRow(in: rows)
        let first = Self.firstShown(selected: selected, visible: visible)
        let shown = rows.dropFirst(first).prefix(visible)
        let idWidth = min(24, max(2, shown.map(\.id.count).max() ?? 2))
        // A tap's real IDs: its own columns in place of the simulated members' state and requests.
        let tap = !view.tapped ? nil : TapTableColumns(width: inner, idWidth: idWidth)
        let header = tap?.header ?? simulatedHeader(idWidth: idWidth, inner: inner)
        canvas.putTruncated(header, x: left, y: y + 1, width: inner, role: .dim)
        if rows.isEmpty {
            let why =
                table.filter.isEmpty
                ? "no \(kind.idNoun) has reported yet" : "no \(kind.idNoun) contains \"\(table.filter)\""
            canvas.putTruncated(" " + why, x: left, y: y + 2, width: inner, role: .dim)
        }
        for (offset, row) in shown.enumerated() {
            draw(
                row, selected: first + offset == selected, &canvas, x: left, y: y + 2 + offset, width: inner,
                idWidth: idWidth, tap: tap)
        }
        drawKeys(table, rows: rows.count, selected: selected, &canvas, x: x, y: y + height - 1, width: width)
    }

    private func simulatedHeader(idWidth: Int, inner: Int) -> String {
        " " + "ID".fitted(idWidth) + "  " + "state".fitted(Self.stateWidth) + "  "
            + "expires in".leftPadded(Self.expiresWidth, with: " ") + "  "
            + "requests".leftPadded(Self.requestsWidth, with: " ")
            + (inner >= Self.fleetEngineFromWidth ? "  " + "Fleet Engine".fitted(Self.fleetEngineWidth) : "")
            + "  last error"
    }

    /// The first row in view: the selected row stays in view, the table scrolling once it
    /// reaches the last line. Rows start two lines below the table's top (border, header).
    static func firstShown(selected: Int?, visible: Int) -> Int { selected.map { max(0, $0 - visible + 1) } ?? 0 }

    private func draw(
        _ row: FleetMemberRow, selected: Bool, _ canvas: inout Canvas, x: Int, y: Int, width: Int, idWidth: Int,
        tap: TapTableColumns?
    ) {
        // The aggregate judged the state up to a second ago; a token that ran out since is expired now.
        var status = row.status
        if status >= .stale, let exp = row.expiresAt, exp <= view.now { status = .expired }
        let followed = row.index == view.followed
        let (expires, expiresRole) = expiresText(row.expiresAt)
        let errorRole: StyleRole =
            switch status {
            case .failing, .backingOff: .error
            case .stale: .warning
            default: .dim
            }
        // Narrow, without the Fleet Engine column, a failed call takes the empty last-error place:
        // the member's state reads ok, and this is why it sorts among the troubles.
        let lastError: (String, StyleRole) =
            if let churn = row.churn {
                (churn, .warning)
            } else if row.lastError == nil, row.fleetEngineFailed, width < Self.fleetEngineFromWidth {
                // The status first: at 80 columns only about 25 characters are left here.
                ((row.fleetEngine ?? "") + " from Fleet Engine", Self.role(ofFleetEngine: row.fleetEngine))
            } else {
                (row.lastError ?? "", errorRole)
            }
        var segments: [(String, StyleRole)] = [
            followed ? ("▶", .title) : (" ", .text),
            (Format.elideMiddle(row.id, idWidth).fitted(idWidth) + "  ", .text),
            (status.label.fitted(Self.stateWidth) + "  ", status.role),
            (expires.leftPadded(Self.expiresWidth, with: " ") + "  ", expiresRole),
            (String(row.requests).leftPadded(Self.requestsWidth, with: " ") + "  ", .text),
            lastError,
        ]
        if let tap {
            segments =
                Array(segments.prefix(2))
                + tap.cells(row, width: width, expires: (expires, expiresRole), errorRole: errorRole)
        } else if width >= Self.fleetEngineFromWidth {
            segments.insert(
                (
                    (row.fleetEngine ?? "–").fitted(Self.fleetEngineWidth) + "  ",
                    Self.role(ofFleetEngine: row.fleetEngine)
                ), at: 5)
        }
        if selected { canvas.fill(x: x - 1, y: y, width: width + 2, height: 1, role: .selected) }
        var column = 0
        for (text, role) in segments where column < width {
            column += canvas.putTruncated(
                text, x: x + column, y: y, width: width - column, role: selected ? .selected : role)
        }
    }

    /// OK in the OK colour; a refusal of the token in red; anything else (an outage) a warning.
    static func role(ofFleetEngine status: String?) -> StyleRole {
        switch status {
        case nil: .dim
        case "OK"?: .ok
        case "PERMISSION_DENIED"?, "UNAUTHENTICATED"?: .error
        default: .warning
        }
    }

    private func expiresText(_ expiresAt: Date?) -> (String, StyleRole) {
        guard let expiresAt else { return ("–", .dim) }
        let left = expiresAt.timeIntervalSince(view.now)
        return left > 0 ? (Format.duration(left), .text) : ("\(Format.duration(-left)) ago", .error)
    }

    /// `Trips (10000): 12 failing · 3 backing off · 9985 ok` (a tap's `Trips (6): 2 churning, 4 ok`), or with a filter
    /// `Trips containing "004" (11 of 10000): 12 failing · …`; the counts are the whole fleet's.
    private func title(_ kind: ProviderKind, _ table: MemberTable) -> String {
        let noun = kind.spec.fleetNoun
        var title = noun.prefix(1).uppercased() + noun.dropFirst()
        let count = view.fleetSize
        if table.filter.isEmpty {
            title += " (\(count))"
        } else {
            // Until the aggregate answers, how many match is not known.
            let matching = table.latest.filter == table.filter ? "\(table.latest.matching)" : "…"
            title += " containing \"\(table.filter)\" (\(matching) of \(count))"
        }
        if view.tapped {
            // A tap counts what it judged: churn first, then the IDs by their last verdict.
            let counts = table.latest.tally?.counts.map { "\($0.count) \($0.label)" } ?? []
            if !counts.isEmpty { title += ": " + counts.joined(separator: ", ") }
        } else if let states = view.summary?.states {
            let counts = MemberStatus.allCases.compactMap { status in
                states[status].flatMap { $0 > 0 ? "\($0) \(status.label)" : nil }
            }
            if !counts.isEmpty { title += ": " + counts.joined(separator: " · ") }
            if let failing = view.summary?.fleetEngineFailing, failing > 0 {
                title += " · \(failing) Fleet Engine " + (failing == 1 ? "error" : "errors")
            }
        }
        return title
    }

    /// The table's keys from the key table, on the lower border; the selected row's place at its right.
    private func drawKeys(
        _ table: MemberTable, rows: Int, selected: Int?, _ canvas: inout Canvas, x: Int, y: Int, width: Int
    ) {
        var column = x + 2
        for binding in KeyBinding.paired(view.keys) where column < x + width - 2 {
            column += canvas.put(" " + binding.label, x: column, y: y, role: .title, limit: x + width - 2 - column)
            column += canvas.put(" " + binding.hint + " ", x: column, y: y, role: .dim, limit: x + width - 2 - column)
        }
        guard let selected else { return }
        var place = " \(selected + 1)/\(rows)"
        if table.latest.filter == table.filter, table.latest.matching > rows { place += " of \(table.latest.matching)" }
        place += " "
        let at = x + width - 2 - place.count
        if at > column { canvas.put(place, x: at, y: y, role: .dim) }
    }
}
