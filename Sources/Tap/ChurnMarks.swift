import Fleet
import FleetAuth

/// The tap's churn on the dashboard's fleet tables, which the provider events alone cannot show:
/// each churning ID's row carries its sentence and moves to the top, most fetches per token first;
/// the other rows keep the aggregate's trouble-first order.
public enum ChurnMarks {
    public static func apply(_ churning: [TapRow], to tables: [ProviderKind: FleetTable]) -> [ProviderKind: FleetTable] {
        guard !churning.isEmpty else { return tables }
        var rank: [ProviderKind: [String: (Int, String)]] = [:]
        for (place, row) in churning.enumerated() {
            if let sentence = row.trouble { rank[row.kind, default: [:]][row.id] = (place, sentence) }
        }
        var out = tables
        for (kind, table) in tables {
            guard let marks = rank[kind] else { continue }
            var marked: [(Int, FleetMemberRow)] = []
            var rest: [FleetMemberRow] = []
            for var row in table.rows {
                if let (place, sentence) = marks[row.id] {
                    row.churn = sentence
                    marked.append((place, row))
                } else {
                    rest.append(row)
                }
            }
            out[kind]?.rows = marked.sorted { $0.0 < $1.0 }.map(\.1) + rest
        }
        return out
    }
}
