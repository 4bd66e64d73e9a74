import EventLines
import Fleet
import Foundation
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing

/// Providers publish cache hits as counts; everything that tallies them adds the counts.
@Suite(.timeLimit(.minutes(15))) struct CacheHitCountTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000.25)

    func hits(_ count: Int, at offset: TimeInterval = 0) -> ProviderEvent {
        ProviderEvent(
            time: t0.addingTimeInterval(offset), provider: .consumer, id: "trip-1",
            kind: .cacheHit(count: count, expiresAt: t0.addingTimeInterval(600)))
    }

    @Test func countersAddTheCounts() {
        var counters = ProviderCounters()
        counters.record(hits(250))
        counters.record(hits(749))
        counters.record(hits(1))
        counters.record(
            ProviderEvent(time: t0, provider: .consumer, id: "trip-1", kind: .fetchStarted(reason: .noToken)))
        #expect(counters.hits == 1000)
        #expect(counters.requests == 1)
        #expect(counters.hitRatio == 1000.0 / 1001.0)
    }

    @Test func fleetStatisticsAddTheCounts() {
        var stats = FleetStatistics()
        for i in 0..<10 { stats.record(hits(100, at: Double(i))) }
        #expect(stats.summary(now: t0.addingTimeInterval(10), providers: 1).counters.hits == 1000)
    }

    @Test func countsPastIntMaxHoldThereInsteadOfTrapping() {
        // A recording's count of 2^63-1, twice, trapped the replay's sums here.
        var stats = FleetStatistics()
        stats.record(hits(Int.max))
        stats.record(hits(Int.max))
        stats.record(ProviderEvent(time: t0, provider: .consumer, id: "trip-1", kind: .fetchStarted(reason: .noToken)))
        let summary = stats.summary(now: t0.addingTimeInterval(1), providers: 1)
        #expect(summary.counters.hits == Int.max)
        #expect(summary.window.hits == Int.max)
        #expect(summary.counters.hitRatio == 1)
        // And an event at a time no clock shows lands nowhere, without a trap.
        stats.record(
            ProviderEvent(
                time: Date(timeIntervalSince1970: -1e300), provider: .consumer, id: "trip-1",
                kind: .cacheHit(count: 1, expiresAt: t0)))
        #expect(stats.summary(now: t0.addingTimeInterval(1), providers: 1).window.hits == Int.max)
    }

    @Test func watchLinesCarryTheCount() {
        let line = EventLineEncoder().encode(hits(42))
        #expect(
            line
                == #"{"time":"2027-01-15T08:00:00.250Z","provider":"consumer","id":"trip-1","event":"cache_hit","count":42,"expires_at":"2027-01-15T08:10:00.250Z"}"#
        )
        let summary = EventLineEncoder().summary([
            .consumer: {
                var c = ProviderCounters()
                c.record(hits(42))
                return c
            }()
        ])
        #expect(summary.contains(#""hits":42,"requests":0}"#))
    }

    @Test func simulatedSDKsHitsAllReachTheReader() async throws {
        let events = EventBroadcaster(hitFlushInterval: .seconds(3600))
        let stream = events.subscribe(buffer: 10_000)
        let sdks = SimulatedSDKs<TripAuthorizationContext>(
            ids: ["trip-1", "trip-2"], endpoint: .sampleBackend(.consumer, base: "http://b"),
            transport: mintingTransport(kind: .consumer), events: events, refreshMargin: 300)
        await sdks.update(callers: 1)
        for _ in 0..<50 { await sdks.update(callers: 10) }
        events.finish()
        var counters = ProviderCounters()
        var hitEvents = 0
        for await event in stream {
            counters.record(event)
            if case .cacheHit = event.kind { hitEvents += 1 }
        }
        #expect(counters.requests == 2)
        #expect(counters.hits == 2 * 50 * 10)
        #expect(hitEvents <= 2, "one count per provider, published at finish")
    }
}
