import Foundation
import ProviderVocabulary
import TapReading
import TestSupport
import Testing
import TokenMetrics

/// `tap --metrics`: exchanges by kind and status class, tokens by verdict, upstream latency, fetches
/// per token as a histogram and churning IDs as a count, none labelled by ID.
@Suite(.timeLimit(.minutes(15))) struct TapMetricsTests {
    @Test func exchangesAreCountedWithoutIDs() {
        let metrics = TapMetrics()
        func reading(_ id: String?, status: Int, verdict: TapVerdict, ratio: Double?) -> TappedExchange {
            var reading = TappedExchange(
                time: TestTime.t0, kind: id == nil ? nil : .driver, id: id, method: "GET", status: status,
                latency: 0.003, verdict: verdict)
            reading.fetchesPerToken = ratio
            return reading
        }
        for _ in 0..<12 { metrics.record(reading("vehicle-careless", status: 200, verdict: .ok, ratio: 12)) }
        metrics.record(reading("vehicle-fine", status: 200, verdict: .ok, ratio: 1))
        metrics.record(reading("vehicle-down", status: 502, verdict: .unreachable, ratio: nil))
        metrics.record(reading(nil, status: 404, verdict: .httpError, ratio: nil))
        let churning = [
            TapRow(
                kind: .driver, id: "vehicle-careless", fetches: 12, tokens: 12, verdict: .ok, lifetime: 3600,
                lastError: nil,
                lastStatus: 200, lastSeen: TestTime.t0, fetchesPerToken: 12, churning: true)
        ]
        #expect(
            String(decoding: metrics.exposition(churning: [], unread: 0), as: UTF8.self).contains(
                "tokendash_tap_exchanges_unread_total 0"))
        _ = metrics.exposition(churning: [], unread: 3)
        let text = String(decoding: metrics.exposition(churning: churning, unread: 5), as: UTF8.self)
        #expect(text.contains(#"tokendash_tap_exchanges_total{provider="driver",code="2xx"} 13"#))
        #expect(text.contains(#"tokendash_tap_exchanges_total{provider="driver",code="5xx"} 1"#))
        #expect(text.contains(#"tokendash_tap_exchanges_total{provider="none",code="4xx"} 1"#))
        #expect(text.contains(#"tokendash_tap_tokens_total{provider="driver",verdict="unreachable"} 1"#))
        #expect(text.contains(#"tokendash_tap_fetches_per_token_bucket{provider="driver",le="8.0"} 1"#))
        #expect(text.contains(#"tokendash_tap_fetches_per_token_count{provider="driver"} 13"#))
        #expect(text.contains(#"tokendash_tap_churning_ids{provider="driver"} 1.0"#))
        // Each scrape adds what was dropped since the last: 3, then 2 more.
        #expect(text.contains("tokendash_tap_exchanges_unread_total 5\n"))
        #expect(text.contains(#"tokendash_tap_upstream_duration_seconds_count{provider="driver"} 14"#))
        #expect(!text.contains("vehicle-"))
    }
}
