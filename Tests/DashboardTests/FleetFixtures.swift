import Fleet
import FleetEngineAPI
import Foundation
import ProviderEvents
import ProviderVocabulary

@testable import Dashboard

/// A fleet of 10,000 trips and 10,000 vehicles with members in every state. The fleet rows and
/// tables come from `FleetStatistics` fed with provider events, as the live source makes them.
enum FleetFixtures {
    static let t0 = Fixtures.t0
    /// When the frame is drawn: 50 s after the fleet's first fetches.
    static let now = t0.addingTimeInterval(50)
    static let count = 10_000

    static func ids(_ kind: ProviderKind) -> [String] {
        (0..<count).map { IDSequence.fleetID(prefix: kind == .consumer ? "trip" : "vehicle", index: $0, count: count) }
    }

    static func event(_ kind: ProviderKind, _ id: String, _ k: ProviderEvent.Kind, at offset: TimeInterval)
        -> ProviderEvent
    {
        ProviderEvent(time: t0.addingTimeInterval(offset), provider: kind, id: id, kind: k)
    }

    /// The events of one kind: every member fetched once at +1 s (tokens expiring between +120 s
    /// and +620 s, refresh points 100 s before), hits, and the troubles of a few.
    static func events(_ kind: ProviderKind) -> [ProviderEvent] {
        let base = Fixtures.token(kind, id: "x", lifetime: 300)
        let ids = ids(kind)
        var out: [ProviderEvent] = []
        // An error long before the frame's minute: shown in the table, not counted or coloured.
        out.append(event(kind, ids[2], .fetchStarted(reason: .noToken), at: -30))
        out.append(event(kind, ids[2], .fetchFailed(.timeout(seconds: 10), latency: 10), at: -30))
        for (i, id) in ids.enumerated() {
            // The followed member's token is its own, for the pane's claims line.
            var token = i == 0 ? Fixtures.token(kind, id: id, issued: t0.addingTimeInterval(1.5), lifetime: 300) : base
            token.id = id
            if i > 0 { token.expiresAt = t0.addingTimeInterval(120 + Double((i * 37) % 500)) }
            token.refreshAt = token.expiresAt.addingTimeInterval(-100)
            out.append(event(kind, id, .fetchStarted(reason: .noToken), at: 1))
            out.append(event(kind, id, .fetched(token, latency: 0.004 + Double(i % 40) / 1000), at: 1.5))
            if i % 4 == 0 { out.append(event(kind, id, .cacheHit(expiresAt: token.expiresAt), at: 6)) }
            // Each member's call to Fleet Engine with its token: most accepted, two not.
            let status = i == 3 ? "PERMISSION_DENIED" : i == 5 ? "UNAVAILABLE" : "OK"
            let answer = FleetEngineAnswer(
                method: kind == .consumer ? .getTrip : .updateVehicle, resource: "providers/p/x/\(id)",
                httpStatus: status == "OK" ? 200 : status == "UNAVAILABLE" ? 503 : 403, status: status,
                message: "", latency: 0.003, fingerprint: token.fingerprint, rules: .ok)
            if i < 8 { out.append(event(kind, id, .fleetEngineCall(answer), at: 7)) }
        }
        guard kind == .consumer else {
            out.append(event(kind, ids[12], .fetchStarted(reason: .forced), at: 44))
            out.append(event(kind, ids[12], .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.02), at: 44))
            return out
        }
        func expire(_ i: Int, at offset: TimeInterval) {
            var token = base
            token.id = ids[i]
            token.expiresAt = t0.addingTimeInterval(offset)
            out.append(event(kind, ids[i], .fetched(token, latency: 0.01), at: 2))
        }
        // Failing: its token ran out at +30 s, the retry at +45 s got a 500, its backoff is over.
        expire(6, at: 30)
        out.append(event(kind, ids[6], .fetchStarted(reason: .expired), at: 45))
        out.append(event(kind, ids[6], .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.03), at: 45))
        // Backing off: a 429 asked for 30 s at +40 s.
        expire(41, at: 20)
        out.append(event(kind, ids[41], .fetchStarted(reason: .expired), at: 40))
        out.append(
            event(
                kind, ids[41], .fetchFailed(.httpStatus(code: 429, body: "slow down", retryAfter: 30), latency: 0.01),
                at: 40))
        // Expired: the SDK saw its token run out at +48 s, no fetch yet.
        expire(99, at: 48)
        out.append(event(kind, ids[99], .expired(at: t0.addingTimeInterval(48)), at: 49))
        // No token: its ID changed at +30 s (to one no backend knows), the first fetch still out.
        out.append(event(kind, "trip-x0500", .idChanged(from: ids[499], to: "trip-x0500"), at: 30))
        out.append(event(kind, ids[499], .cacheDropped(reason: "trip ID changed from \(ids[499])"), at: 30))
        out.append(event(kind, "trip-x0500", .fetchStarted(reason: .idChanged), at: 30))
        // Stale: a refresh timed out, the token is still good.
        out.append(event(kind, ids[1233], .fetchStarted(reason: .refreshAhead), at: 33))
        out.append(event(kind, ids[1233], .fetchFailed(.timeout(seconds: 10), latency: 10), at: 43))
        // Failing with a long error: the table cuts it at its edge.
        expire(9998, at: 25)
        out.append(event(kind, ids[9998], .fetchStarted(reason: .expired), at: 47))
        out.append(
            event(
                kind, ids[9998],
                .fetchFailed(
                    .unreachable(
                        url: "http://127.0.0.1:40123/token/consumer/trip-09999",
                        reason: "connection refused (is the token server running?)"), latency: 0.001), at: 47))
        return out
    }

    static func statistics(_ kind: ProviderKind) -> FleetStatistics {
        var stats = FleetStatistics(ids: ids(kind))
        for event in events(kind) { stats.record(event) }
        return stats
    }

    /// The dashboard following the first trip and vehicle, with the fleet rows and tables sent.
    static func state() -> DashboardState {
        var s = Fixtures.state(trips: count, vehicles: count, consumerID: ids(.consumer)[0], driverID: ids(.driver)[0])
        let stats: [ProviderKind: FleetStatistics] = [.consumer: statistics(.consumer), .driver: statistics(.driver)]
        // The panes see the events of the members they follow.
        for kind in s.kinds {
            for event in events(kind) where event.id == s[kind].id { Fixtures.apply(&s, .event(event)) }
        }
        Fixtures.apply(&s, .tick(now))
        Fixtures.apply(&s, .fleet(stats.mapValues { $0.summary(now: now) }))
        Fixtures.apply(&s, .fleetTables(stats.mapValues { $0.table(now: now) }))
        return s
    }

    /// What the aggregate answers to `Effect.queryTables`: the tables made under `filter`.
    static func tables(filter: String, for kind: ProviderKind = .consumer) -> Action {
        let stats: [ProviderKind: FleetStatistics] = [.consumer: statistics(.consumer), .driver: statistics(.driver)]
        return .fleetTables(
            stats.reduce(into: [:]) { $0[$1.key] = $1.value.table(now: now, filter: $1.key == kind ? filter : "") })
    }
}
