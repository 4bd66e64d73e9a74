import Fleet
import FleetTables
import Foundation
import UICore

/// The fleet table's columns for a tap's real IDs: what each ID's devices did in the last hour
/// (`fetches/h`, distinct `tokens`), the last `verdict` and token `lifetime`, the last error (or
/// the churn sentence), and at full width when the last token expires. Narrower, the columns
/// that say least give way first: expiry, then lifetime (the churn sentence says the ratio), then tokens.
struct TapTableColumns {
    enum Column: CaseIterable {
        case verdict, fetches, tokens, lifetime, expires

        var header: String {
            switch self {
            case .verdict: "verdict"
            case .fetches: "fetches/h"
            case .tokens: "tokens"
            case .lifetime: "lifetime"
            case .expires: "expires in"
            }
        }

        /// `churn · warn`, `unreachable`; `1 h 00 m`; `59 m 59 s ago`.
        var width: Int {
            switch self {
            case .verdict: 12
            case .fetches: 9
            case .tokens: 6
            case .lifetime: 8
            case .expires: 12
            }
        }
    }

    /// The last error column keeps at least this much: the churn sentence's ratio and cause.
    static let errorMinimum = 28
    /// Kept while they fit, in this order; verdict and fetches always.
    static let optional: [Column] = [.tokens, .lifetime, .expires]

    let columns: [Column]
    let idWidth: Int

    /// The columns that fit `width` (the table's inner width) with an ID column of `idWidth`.
    init(width: Int, idWidth: Int) {
        self.idWidth = idWidth
        var columns: [Column] = [.verdict, .fetches]
        var used = 1 + idWidth + 2 + columns.reduce(0) { $0 + $1.width + 2 }
        for column in Self.optional where used + column.width + 2 + Self.errorMinimum <= width {
            columns.append(column)
            used += column.width + 2
        }
        self.columns = Column.allCases.filter(columns.contains)
    }

    var header: String {
        " " + "ID".fitted(idWidth) + "  "
            + columns.map { column in
                (column == .verdict
                    ? column.header.fitted(column.width) : column.header.leftPadded(column.width, with: " ")) + "  "
            }.joined() + "last error"
    }

    /// The row's cells after the ID, each with its role; `expires` is the expiry column's text and
    /// role. The churn sentence whole when `width` (the table's inner width) has room for it, else its brief form.
    func cells(_ row: FleetMemberRow, width: Int, expires: (String, StyleRole), errorRole: StyleRole) -> [(
        String, StyleRole
    )] {
        let tapped = row.tapped
        var cells: [(String, StyleRole)] = columns.map { column in
            let (text, role): (String, StyleRole) =
                switch column {
                // Churn is the row's trouble; the token's own verdict stays beside it.
                case .verdict:
                    row.churn == nil
                        ? (tapped?.verdict ?? "–", Self.role(tapped?.level))
                        : ("churn · " + (tapped?.verdict ?? "–"), .warning)
                case .fetches: (tapped.map { String($0.fetches) } ?? "–", row.churn == nil ? .text : .warning)
                case .tokens: (tapped.map { String($0.tokens) } ?? "–", .text)
                case .lifetime: (tapped?.lifetime.map(Format.duration) ?? "–", tapped?.lifetime == nil ? .dim : .text)
                case .expires: expires
                }
            let shown = column == .verdict ? text.fitted(column.width) : text.leftPadded(column.width, with: " ")
            return (shown + "  ", role)
        }
        let room = width - 1 - idWidth - 2 - cells.reduce(0) { $0 + $1.0.count }
        if let churn = row.churn {
            cells.append((churn.count > room ? tapped?.churnBrief ?? churn : churn, .warning))
        } else {
            cells.append((row.lastError ?? "", errorRole))
        }
        return cells
    }

    static func role(_ level: TappedColumns.Level?) -> StyleRole {
        switch level {
        case nil: .dim
        case .ok?: .ok
        case .warn?: .warning
        case .trouble?: .error
        }
    }
}
