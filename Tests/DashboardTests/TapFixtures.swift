import Fleet
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary

@testable import Dashboard

/// A tap's dashboard after 50 minutes in front of a backend: real IDs learnt as they asked, each
/// row with the tap's columns as `TapTableMarks` sets them (Dashboard's tests cannot import Tap:
/// the values are written here as the ledger would give them), three vehicles and a trip churning.
enum TapFixtures {
    static let t0 = Fixtures.t0
    static let now = t0.addingTimeInterval(3000)

    struct Device {
        var id: String
        var fetches = 1
        var verdict = "ok"
        var level = TappedColumns.Level.ok
        var lifetime: Int? = 3600
        var failure: FleetAuthError?
        var churn: Double?
    }

    static func devices(_ kind: ProviderKind) -> [Device] {
        let prefix = kind == .consumer ? "trip" : "vehicle"
        var out = (1...8).map { Device(id: "\(prefix)-00\($0)") }
        out[1].churn = 12
        out[1].fetches = 12
        out[4].verdict = "http_error"
        out[4].level = .trouble
        out[4].failure = .httpStatus(code: 503, body: "upstream overloaded")
        out[4].lifetime = nil
        out[6].verdict = "warn"
        out[6].level = .warn
        if kind == .driver {
            out[2].churn = 25
            out[2].fetches = 25
            out[5].churn = 6
            out[5].fetches = 6
            out[7].verdict = "fail"
            out[7].level = .trouble
            out[7].lifetime = nil
            out[7].failure = .wrongID(claim: "vehicleid", expected: "vehicle-008", found: "vehicle-800")
        }
        return out
    }

    static func statistics(_ kind: ProviderKind) -> FleetStatistics {
        var stats = FleetStatistics()
        for (i, device) in devices(kind).enumerated() {
            for fetch in 0..<device.fetches {
                // Spread over the 50 minutes before the frame.
                let at = t0.addingTimeInterval(Double(i) + Double(fetch) * 2900 / Double(device.fetches))
                stats.record(
                    ProviderEvent(time: at, provider: kind, id: device.id, kind: .fetchStarted(reason: .noToken)))
                let outcome: ProviderEvent.Kind =
                    if let failure = device.failure {
                        .fetchFailed(failure, latency: 0.02)
                    } else {
                        .fetched(
                            Fixtures.token(kind, id: device.id, issued: at, lifetime: device.lifetime ?? 3600),
                            latency: 0.02)
                    }
                stats.record(
                    ProviderEvent(time: at.addingTimeInterval(0.02), provider: kind, id: device.id, kind: outcome))
            }
        }
        return stats
    }

    /// The aggregate's table with the tap's columns on each row, churning rows first (most fetches per token first).
    static func table(_ kind: ProviderKind, filter: String = "") -> FleetTable {
        var table = statistics(kind).table(now: now, filter: filter)
        let byID = Dictionary(uniqueKeysWithValues: devices(kind).map { ($0.id, $0) })
        var churning: [(Double, FleetMemberRow)] = []
        var rest: [FleetMemberRow] = []
        for var row in table.rows {
            guard let device = byID[row.id] else { continue }
            row.tapped = TappedColumns(
                fetches: device.fetches, tokens: device.failure == nil ? device.fetches : 0,
                verdict: device.verdict, level: device.level, lifetime: device.lifetime.map(TimeInterval.init),
                churnBrief: device.churn.map { "\(Int($0))× per token: not caching" })
            if let ratio = device.churn {
                row.churn = "fetches \(Int(ratio))× per token: the app's provider is not caching"
                churning.append((ratio, row))
            } else {
                rest.append(row)
            }
        }
        table.rows = churning.sorted { $0.0 > $1.0 }.map(\.1) + rest
        table.tally = tally(kind)
        return table
    }

    /// The kind's counts as `TapTableMarks.tally` makes them: churning, then the rest by verdict, trouble first.
    static func tally(_ kind: ProviderKind) -> TapTally {
        let all = devices(kind)
        let order = ["fail", "unreachable", "http_error", "unreadable", "warn", "ok"]
        let calm = all.filter { $0.churn == nil }
        return TapTally(
            churning: all.count { $0.churn != nil },
            verdicts: order.compactMap { verdict in
                let with = calm.filter { $0.verdict == verdict }
                return with.first.map { TapTally.Count(label: verdict, count: with.count, level: $0.level) }
            },
            lastVerdicts: all.reduce(into: [:]) { $0[$1.verdict, default: 0] += 1 },
            fetches: all.reduce(0) { $0 + $1.fetches })
    }

    /// The tap's first state, as `tokendash tap` makes it, then a second's summaries and tables.
    static func state() -> DashboardState {
        var s = DashboardState(
            consumerID: "", driverID: "", now: t0, backend: "tap 127.0.0.1:8088 → https://tokens.internal:8443",
            faultsAvailable: false, themeNames: ["default"], refreshMargin: 0,
            trips: FleetStatistics.defaultCapacity, vehicles: FleetStatistics.defaultCapacity)
        s.learnMembers()
        Fixtures.apply(&s, .tick(now))
        let kinds: [ProviderKind] = [.consumer, .driver]
        Fixtures.apply(
            &s, .fleet(Dictionary(uniqueKeysWithValues: kinds.map { ($0, statistics($0).summary(now: now)) })))
        Fixtures.apply(&s, .fleetTables(Dictionary(uniqueKeysWithValues: kinds.map { ($0, table($0)) })))
        return s
    }

    /// trip-002's last hour as the ledger gives it: twelve fetches five minutes apart, a new
    /// hour-long token each time.
    static func churnerHistory() -> TappedHistory {
        let fetches = (0..<12).map { i -> TappedHistory.Fetch in
            let at = t0.addingTimeInterval(1 + Double(i) * 2900 / 12)
            return TappedHistory.Fetch(
                time: at, status: 200, latency: 0.02 + Double(i % 3) * 0.01,
                fingerprint: String(format: "%08x", 0xa0 + i),
                verdict: "ok", level: .ok, expiresAt: at.addingTimeInterval(3600))
        }
        let last = t0.addingTimeInterval(1 + 11 * 2900 / 12)
        var history = TappedHistory(
            fetches: [], counts: TappedCounts(since: t0.addingTimeInterval(1)), churnLimit: 4,
            token: Fixtures.token(.consumer, id: "trip-002", issued: last, lifetime: 3600))
        for fetch in fetches { history.append(fetch) }
        return history
    }

    /// The tap's state after `n` landed on the churning trip and the performer answered with its last hour.
    static func followingChurner() -> DashboardState {
        var s = state()
        let effects = Fixtures.apply(&s, .key(.character("n")))
        guard case .follow(let kind, let index)? = effects.first else { return s }
        let history = churnerHistory()
        Fixtures.apply(
            &s,
            .following(
                kind, index: index, member: MemberSnapshot(id: "trip-002", token: history.token, tapped: history)))
        return s
    }
}
