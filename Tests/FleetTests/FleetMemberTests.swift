import Fleet
import FleetEngineAPI
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import Testing
import TokenReading

/// Each member's state from its events, the table made of them, and the 60 s windows, all at
/// instants the test names: no sleeps.
@Suite(.timeLimit(.minutes(15))) struct FleetMemberTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let ids = ["trip-1", "trip-2", "trip-3", "trip-4", "trip-5"]

    func at(_ offset: TimeInterval) -> Date { t0.addingTimeInterval(offset) }

    func event(_ id: String, _ kind: ProviderEvent.Kind, at offset: TimeInterval) -> ProviderEvent {
        ProviderEvent(time: at(offset), provider: .consumer, id: id, kind: kind)
    }

    func token(_ id: String, expiresAt offset: TimeInterval) throws -> FetchedToken {
        let jwt = try JWTInspector.decode("eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjF9.c2ln")
        return FetchedToken(token: "x", id: id, expiresAt: at(offset), receivedAt: t0, jwt: jwt)
    }

    func statuses(_ stats: FleetStatistics, at offset: TimeInterval) -> [String: MemberStatus] {
        Dictionary(uniqueKeysWithValues: stats.table(now: at(offset)).rows.map { ($0.id, $0.status) })
    }

    @Test func eachMembersStateComesFromItsEvents() throws {
        var stats = FleetStatistics(ids: ids)
        // trip-1: a token until +100 s. trip-2: the same, then a failed refresh.
        for id in ["trip-1", "trip-2"] {
            stats.record(event(id, .fetchStarted(reason: .noToken), at: 0))
            stats.record(event(id, .fetched(try token(id, expiresAt: 100), latency: 0.01), at: 0.1))
        }
        stats.record(event("trip-2", .fetchStarted(reason: .refreshAhead), at: 10))
        stats.record(event("trip-2", .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.01), at: 10))
        // trip-3: three failures in a row, the last at +10 s: the provider waits 4 s.
        for i in 0..<3 {
            stats.record(event("trip-3", .fetchStarted(reason: .noToken), at: Double(i) * 5))
            stats.record(
                event(
                    "trip-3", .fetchFailed(.unreachable(url: "http://x", reason: "connection refused"), latency: 0),
                    at: Double(i) * 5))
        }
        // trip-4 becomes trip-9: a new member in the same place, nothing fetched yet.
        stats.record(event("trip-4", .fetchStarted(reason: .noToken), at: 0))
        stats.record(event("trip-9", .idChanged(from: "trip-4", to: "trip-9"), at: 5))
        stats.record(
            event("trip-4", .fetchFailed(.superseded(requested: "trip-4", current: "trip-9"), latency: 0), at: 5))
        stats.record(event("trip-4", .cacheDropped(reason: "trip ID changed from trip-4"), at: 5))
        // An ID that is no member is not counted as one.
        stats.record(event("trip-77", .fetchStarted(reason: .noToken), at: 5))
        #expect(stats.memberCount == 5)

        #expect(
            statuses(stats, at: 12) == [
                "trip-1": .ok, "trip-2": .stale, "trip-3": .backingOff, "trip-9": .noToken, "trip-5": .noToken,
            ])
        // The backoff is over at +14 s: trip-3 would ask at its next call, and is failing.
        #expect(statuses(stats, at: 15)["trip-3"] == .failing)
        // Its retry is in flight: still failing, not backing off.
        stats.record(event("trip-3", .fetchStarted(reason: .noToken), at: 20))
        #expect(statuses(stats, at: 20.5)["trip-3"] == .failing)
        // trip-1's token runs out at +100 s: expired, while no fetch failed.
        stats.record(event("trip-1", .expired(at: at(100)), at: 101))
        #expect(statuses(stats, at: 101)["trip-1"] == .expired)
        #expect(statuses(stats, at: 101)["trip-2"] == .failing, "stale until its token ran out")

        let rows = stats.table(now: at(12)).rows
        // Trouble first, each trouble by index; then the members holding a token.
        #expect(rows.map(\.id) == ["trip-3", "trip-9", "trip-5", "trip-2", "trip-1"])
        #expect(rows.map(\.index) == [2, 3, 4, 1, 0])
        let trip3 = try #require(rows.first)
        #expect(trip3.requests == 4)
        #expect(trip3.lastError == "backend unreachable at http://x: connection refused")
        #expect(rows[1].requests == 0 && rows[1].lastError == nil, "a new ID starts afresh")
        #expect(rows[3].lastError == "backend answered HTTP 500 Internal Server Error: boom")
        #expect(rows[4].expiresAt == at(100))
    }

    /// A member whose token cache is fine but whose token Fleet Engine refused is in trouble: its
    /// SDK's calls fail. It sorts before the stale and ok members, `n` stops at it, and the
    /// standing counts it; an OK answer changes nothing.
    @Test func aMemberFleetEngineRefusesSortsAmongTheTroubles() throws {
        var stats = FleetStatistics(ids: ids)
        for (i, id) in ids.enumerated() {
            stats.record(event(id, .fetchStarted(reason: .noToken), at: 0))
            stats.record(event(id, .fetched(try token(id, expiresAt: 100 + Double(i)), latency: 0.01), at: 0.1))
        }
        // trip-2: stale. trip-4: refused by Fleet Engine. trip-5: accepted.
        stats.record(event("trip-2", .fetchStarted(reason: .refreshAhead), at: 10))
        stats.record(event("trip-2", .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.01), at: 10))
        func answer(_ id: String, _ status: String, _ http: Int) -> ProviderEvent.Kind {
            .fleetEngineCall(
                FleetEngineAnswer(
                    method: .getTrip, resource: "providers/p/trips/\(id)", httpStatus: http, status: status,
                    message: "", latency: 0.003, fingerprint: "f", rules: .ok))
        }
        stats.record(event("trip-4", answer("trip-4", "PERMISSION_DENIED", 403), at: 11))
        stats.record(event("trip-5", answer("trip-5", "OK", 200), at: 11))

        let rows = stats.table(now: at(12)).rows
        #expect(rows.map(\.id) == ["trip-4", "trip-2", "trip-1", "trip-3", "trip-5"])
        #expect(rows.map(\.status) == [.ok, .stale, .ok, .ok, .ok], "the cache's state is still its own")
        #expect(rows.map(\.isTrouble) == [true, true, false, false, false])
        #expect(rows.first?.fleetEngine == "PERMISSION_DENIED")
        #expect(stats.standing(now: at(12)).fleetEngineFailing == 1)
        // Accepted at the next call: back among the ok members, by expiry.
        stats.record(event("trip-4", answer("trip-4", "OK", 200), at: 21))
        #expect(stats.table(now: at(22)).rows.map(\.id) == ["trip-2", "trip-1", "trip-3", "trip-4", "trip-5"])
        #expect(stats.standing(now: at(22)).fleetEngineFailing == 0)
        // Refused again, then the SDK moves to another trip: the new member has made no call.
        stats.record(event("trip-4", answer("trip-4", "UNAUTHENTICATED", 401), at: 31))
        #expect(stats.standing(now: at(32)).fleetEngineFailing == 1)
        stats.record(event("trip-9", .idChanged(from: "trip-4", to: "trip-9"), at: 33))
        #expect(stats.standing(now: at(34)).fleetEngineFailing == 0)
        #expect(stats.table(now: at(34)).rows.first { $0.id == "trip-9" }?.fleetEngine == nil)
    }

    @Test func theTableIsFilteredByIDAndCut() throws {
        let ids = (1...1200).map { "trip-\($0)" }
        var stats = FleetStatistics(ids: ids)
        for (i, id) in ids.enumerated() {
            stats.record(event(id, .fetched(try token(id, expiresAt: 2000 - Double(i)), latency: 0.01), at: 0))
        }
        let all = stats.table(now: at(1))
        #expect(all.matching == 1200)
        #expect(all.rows.count == FleetTable.rowLimit)
        #expect(all.rows.first?.id == "trip-1200", "soonest expiry first")
        // Any case, anywhere in the ID, over every member and not just the rows sent before.
        let some = stats.table(now: at(1), filter: "RIP-11")
        #expect(some.filter == "RIP-11")
        #expect(some.matching == 111)
        #expect(some.rows.allSatisfy { $0.id.hasPrefix("trip-11") })
        #expect(stats.table(now: at(1), filter: "x").rows.isEmpty)
        #expect(FleetTable.matches("Trip-00042", "p-000"))
        #expect(!FleetTable.matches("trip", "trips"))
    }

    @Test func windowsCoverTheLastMinute() throws {
        var stats = FleetStatistics(ids: ids)
        // One request a second for a minute, each answered from the cache three times after.
        for s in 0..<60 {
            let t = Double(s)
            stats.record(event("trip-1", .fetchStarted(reason: .refreshAhead), at: t))
            stats.record(
                event(
                    "trip-1", .fetched(try token("trip-1", expiresAt: t + 300), latency: s < 40 ? 0.100 : 0.010),
                    at: t + 0.5))
            for _ in 0..<3 { stats.record(event("trip-1", .cacheHit(expiresAt: at(t + 300)), at: t + 0.6)) }
        }
        stats.record(event("trip-2", .fetchStarted(reason: .noToken), at: 5))
        stats.record(event("trip-2", .fetchFailed(.timeout(seconds: 1), latency: 1), at: 6))
        let full = stats.summary(now: at(59.9))
        #expect(full.requestsPerSecond == 61.0 / 60)
        #expect(full.window.hits == 180)
        #expect(full.window.errors == 1)
        #expect(full.p50LatencyMs == 100, "40 slow, 20 fast")
        // 40 s on: the first 40 seconds have left the window, the error with them.
        let later = stats.summary(now: at(99.9))
        #expect(later.window.requests == 20)
        #expect(later.window.hits == 60)
        #expect(later.window.errors == 0)
        #expect(later.counters.errors == 1, "the total since the start keeps it")
        #expect(later.errorRate == 0)
        #expect(later.window.hitRatio == 0.75)
        #expect(later.p99LatencyMs == 10, "only the fast fetches are left")
        // An event older than the window (a late one) changes the totals only.
        stats.record(event("trip-2", .fetchFailed(.timeout(seconds: 1), latency: 1), at: 2))
        #expect(stats.summary(now: at(99.9)).window.errors == 0)
    }

    @Test func memoryIsBoundedForAFleetLearntFromEvents() {
        var stats = FleetStatistics()
        for i in 0..<25_000 { stats.record(event("trip-\(i)", .fetchStarted(reason: .noToken), at: 0)) }
        #expect(stats.memberCount == FleetStatistics.defaultCapacity)
        // Thousands of fetches in one second keep a bounded sample, whose percentiles still hold.
        for i in 0..<20_000 {
            stats.record(
                event(
                    "trip-\(i)",
                    .fetched(
                        FetchedToken(
                            token: "x", id: "trip-\(i)", expiresAt: at(300), receivedAt: t0,
                            jwt: DecodedJWTFixture.jwt), latency: Double(i % 100) / 1000), at: 0.5))
        }
        let summary = stats.summary(now: at(1))
        #expect(summary.states[.ok] == 20_000)
        #expect((40...60).contains(summary.p50LatencyMs ?? 0))
        #expect((95...99).contains(summary.p99LatencyMs ?? 0))
    }
}

enum DecodedJWTFixture {
    // Force-unwrap is safe: a constant, known-good JWT.
    static let jwt = try! JWTInspector.decode("eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjF9.c2ln")
}
