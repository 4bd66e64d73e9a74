import Foundation
import ProviderEvents
import ProviderVocabulary
import Testing

@testable import Dashboard

/// A pane folds counted cache hits into its "cache hit ×N" line by their counts.
@Suite(.timeLimit(.minutes(15))) struct BatchedCacheHitTests {
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

    /// The run of hits on top counts toward the log's bound, and the lines drawn are the log's own newest.
    @Test func aRunOfHitsOnTopKeepsTheLogBoundedAndInOrder() {
        var pane = PaneState(kind: .consumer, id: "trip-1")
        for i in 0..<(PaneState.historyLimit + 20) {
            pane.apply(hits(1, at: Double(2 * i)))
            pane.apply(
                ProviderEvent(
                    time: t0.addingTimeInterval(Double(2 * i + 1)), provider: .consumer, id: "trip-1",
                    kind: .fetchStarted(reason: .refreshAhead)))
        }
        pane.apply(hits(3, at: 5_000))
        pane.apply(hits(4, at: 5_001))
        #expect(pane.log.count == PaneState.historyLimit)
        #expect(pane.log[0].count == 7)
        #expect(pane.log[0].time == t0.addingTimeInterval(5_001))
        #expect(pane.log[1].event == .request)
        #expect(pane.log[2].event == .cacheHit)
        for count in [0, 1, 2, 9, PaneState.historyLimit, PaneState.historyLimit + 5] {
            #expect(pane.newestLog(count) == Array(pane.log.prefix(count)))
        }
        #expect(!pane.logIsEmpty)
        #expect(PaneState(kind: .consumer, id: "trip-1").logIsEmpty)

        // A log set whole, a run of hits first, reads back as set, cut to the bound.
        var set = PaneState(kind: .consumer, id: "trip-1")
        let whole = pane.log + pane.log.reversed()
        set.log = whole
        #expect(set.log == Array(whole.prefix(PaneState.historyLimit)))
        set.log = Array(whole.dropFirst())
        #expect(set.log == Array(whole.dropFirst().prefix(PaneState.historyLimit)))
    }
}
