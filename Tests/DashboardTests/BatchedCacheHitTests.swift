import FleetAuth
import Foundation
import Testing

@testable import Dashboard

/// A pane folds counted cache hits into its "cache hit ×N" line by their counts.
@Suite(.timeLimit(.minutes(3))) struct BatchedCacheHitTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func hits(_ count: Int, at offset: TimeInterval) -> ProviderEvent {
        ProviderEvent(
            time: t0.addingTimeInterval(offset), provider: .consumer, id: "trip-1",
            kind: .cacheHit(count: count, expiresAt: t0.addingTimeInterval(600)))
    }

    @Test func batchesFoldIntoOneLineWithTheirTotal() {
        var pane = PaneState(kind: .consumer, id: "trip-1")
        pane.apply(hits(250, at: 1))
        pane.apply(hits(750, at: 2))
        #expect(pane.log.count == 1)
        #expect(pane.log[0].count == 1000)
        #expect(pane.log[0].time == t0.addingTimeInterval(2))
        #expect(pane.counters.hits == 1000)
        pane.apply(
            ProviderEvent(
                time: t0.addingTimeInterval(3), provider: .consumer, id: "trip-1",
                kind: .fetchStarted(reason: .refreshAhead)))
        pane.apply(hits(7, at: 4))
        #expect(pane.log.map(\.count) == [7, 1, 1000])
        #expect(pane.counters.hits == 1007)
    }
}
