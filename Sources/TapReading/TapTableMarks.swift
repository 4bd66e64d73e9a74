import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization

/// The tap's columns on the dashboard's fleet tables, which the aggregate's member records cannot
/// hold: each tapped ID's fetches and tokens in the last hour, last verdict and lifetime; each
/// churning ID's sentence, its row moved to the top (most fetches per token first); the other
/// rows keep the aggregate's trouble-first order. Its ledger is fed the provider events, not the
/// tap's readings, so a replay of a recording (which keeps only the events) shows what live did.
public final class TapTableMarks: FleetTableMarks {
    // Guards the ledger: written by the event collector, read by whoever makes the tables.
    private let ledger: Mutex<TapLedger>

    /// Exchanges the tap forwarded but could not read; nil in a replay, which cannot know.
    private let unread: (@Sendable () -> Int)?

    public init(churnLimit: Double, unread: (@Sendable () -> Int)? = nil) {
        ledger = Mutex(TapLedger(churnLimit: churnLimit))
        self.unread = unread
    }

    /// What a replay makes its marks with: a tap's recording keeps its churn limit; nil for any
    /// other recording (simulated providers have no tap columns).
    public static func maker(churnLimit: Double?) -> (@Sendable () -> any FleetTableMarks)? {
        guard let churnLimit else { return nil }
        return { @Sendable () -> any FleetTableMarks in TapTableMarks(churnLimit: churnLimit) }
    }

    public func record(_ event: ProviderEvent) {
        guard let reading = TappedExchange(outcome: event) else { return }
        _ = ledger.withLock { $0.record(reading) }
    }

    public func history(_ kind: ProviderKind, id: String, now: Date) -> TappedHistory? {
        ledger.withLock { $0.history(kind, id: id, now: now) }
    }

    public func apply(to tables: [ProviderKind: FleetTable], now: Date) -> [ProviderKind: FleetTable] {
        var out = Self.apply(ledger.withLock { $0.rows(now: now) }, to: tables)
        if let unread {
            let count = unread()
            for kind in out.keys { out[kind]?.tally?.unread = count }
        }
        return out
    }

    /// `rows` (trouble first, as the ledger sorts them) onto the tables' rows of the same IDs.
    public static func apply(_ rows: [TapRow], to tables: [ProviderKind: FleetTable]) -> [ProviderKind: FleetTable] {
        guard !rows.isEmpty else { return tables }
        var tallied = tables
        for kind in tables.keys { tallied[kind]?.tally = tally(rows.filter { $0.kind == kind }) }
        return marked(rows, tallied)
    }

    /// The counts of one kind's `rows`: churning, then the others by verdict, trouble first.
    public static func tally(_ rows: [TapRow]) -> TapTally {
        var byVerdict: [TapVerdict: Int] = [:]
        for row in rows where !row.churning { byVerdict[row.verdict, default: 0] += 1 }
        return TapTally(
            churning: rows.count(where: \.churning),
            verdicts: TapVerdict.allCases.compactMap { verdict in
                byVerdict[verdict].map { TapTally.Count(label: verdict.rawValue, count: $0, level: verdict.level) }
            },
            lastVerdicts: rows.reduce(into: [:]) { $0[$1.verdict.rawValue, default: 0] += 1 },
            fetches: rows.reduce(0) { $0 + $1.fetches })
    }

    private static func marked(_ rows: [TapRow], _ tables: [ProviderKind: FleetTable]) -> [ProviderKind: FleetTable] {
        var byID: [ProviderKind: [String: (place: Int, row: TapRow)]] = [:]
        for (place, row) in rows.enumerated() { byID[row.kind, default: [:]][row.id] = (place, row) }
        var out = tables
        for (kind, table) in tables {
            guard let known = byID[kind] else { continue }
            var churning: [(Int, FleetMemberRow)] = []
            var rest: [FleetMemberRow] = []
            for var member in table.rows {
                guard let (place, row) = known[member.id] else {
                    rest.append(member)
                    continue
                }
                member.tapped = TappedColumns(
                    fetches: row.fetches, tokens: row.tokens, verdict: row.verdict.rawValue,
                    level: row.verdict.level,
                    lifetime: row.lifetime, churnBrief: row.churnBrief)
                if row.churning, let sentence = row.trouble {
                    member.churn = sentence
                    churning.append((place, member))
                } else {
                    rest.append(member)
                }
            }
            out[kind]?.rows = churning.sorted { $0.0 < $1.0 }.map(\.1) + rest
        }
        return out
    }
}
