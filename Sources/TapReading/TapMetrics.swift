import Foundation
import Prometheus
import ProviderVocabulary
import Synchronization
import TapForwarding
import TokenMetrics

/// `tap --metrics`: the real devices' exchanges as Prometheus series. As the providers' series,
/// none carries an ID: fetches per token are a histogram, churning IDs a count, so a tap in front
/// of a million devices exposes the same few series as one in front of ten, and several taps
/// behind a load balancer sum by `provider`.
public final class TapMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Upstream latency, seconds: loopback answers take a millisecond, a slow backend seconds.
    public static let latencyBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    /// Fetches of one ID per token lifetime: 1 is a caching app, above `--churn-limit` one that is not.
    public static let fetchBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128]
    /// The kind label of a request no route matched.
    static let unrouted = "none"

    /// One kind's series, made at its first exchange: the registry's lookup by name and labels is
    /// too dear to repeat for each of thousands of exchanges a second.
    private struct Series: Sendable {
        /// By status class (`statusSlot`) and by verdict (`TapVerdict.allCases` order): by index,
        /// not by a hashed label, as this runs for every exchange.
        var exchanges = [Counter?](repeating: nil, count: 6)
        var verdicts = [Counter?](repeating: nil, count: TapVerdict.allCases.count)
        var latency: ValueHistogram
        var fetches: ValueHistogram
    }
    // Guards each kind's series, in `ProviderKind.allCases` order and the unrouted last, made on
    // first use by the reading task. By index, changed where they lie: a series copied out and
    // back copied its dictionaries at every exchange.
    private let series = Mutex<[Series?]>(Array(repeating: nil, count: ProviderKind.allCases.count + 1))
    private let unread: Counter
    // Guards the unread count last exposed, so each scrape adds only what was dropped since.
    private let unreadExposed = Mutex(0)

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        unread = registry.makeCounter(descriptor: Names.unread)
        for kind in ProviderKind.allCases {
            // At 0 from the first scrape, so an alert on them has a series to compare.
            registry.makeGauge(descriptor: Names.churning, labels: [("provider", kind.rawValue)]).set(0.0)
        }
    }

    public func record(_ reading: TappedExchange) {
        let provider = reading.kind?.rawValue ?? Self.unrouted
        let slot = reading.kind.flatMap { ProviderKind.allCases.firstIndex(of: $0) } ?? ProviderKind.allCases.count
        let codeSlot = Self.statusSlot(reading.status)
        let verdictSlot = TapVerdict.allCases.firstIndex(of: reading.verdict) ?? 0
        let (exchanges, verdict, latency, fetches) = series.withLock { all in
            let made =
                all[slot]
                ?? Series(
                    latency: registry.makeValueHistogram(
                        descriptor: Names.upstreamDuration, labels: [("provider", provider)],
                        buckets: Self.latencyBuckets),
                    fetches: registry.makeValueHistogram(
                        descriptor: Names.fetchesPerToken, labels: [("provider", provider)], buckets: Self.fetchBuckets)
                )
            if all[slot] == nil { all[slot] = made }
            let exchanges: Counter
            if let kept = made.exchanges[codeSlot] {
                exchanges = kept
            } else {
                exchanges = registry.makeCounter(
                    descriptor: Names.exchanges,
                    labels: [("provider", provider), ("code", Self.statusClass(reading.status))])
                all[slot]?.exchanges[codeSlot] = exchanges
            }
            let verdict: Counter
            if let kept = made.verdicts[verdictSlot] {
                verdict = kept
            } else {
                verdict = registry.makeCounter(
                    descriptor: Names.verdicts, labels: [("provider", provider), ("verdict", reading.verdict.rawValue)])
                if reading.kind != nil { all[slot]?.verdicts[verdictSlot] = verdict }
            }
            return (exchanges, verdict, made.latency, made.fetches)
        }
        exchanges.increment()
        latency.record(reading.latency)
        guard reading.kind != nil else { return }
        verdict.increment()
        if let ratio = reading.fetchesPerToken { fetches.record(ratio) }
    }

    /// Sets the churning IDs per kind (`churning` now) and the exchanges forwarded but never read
    /// (`unread`, `TapAnalysis.droppedCount`: counted apart, since no reading says their kind),
    /// then renders every series.
    public func exposition(churning: [TapRow], unread: Int) -> [UInt8] {
        let added = unreadExposed.withLock { exposed in
            defer { exposed = max(exposed, unread) }
            return max(0, unread - exposed)
        }
        if added > 0 { self.unread.increment(by: Int64(added)) }
        for kind in ProviderKind.allCases {
            registry.makeGauge(descriptor: Names.churning, labels: [("provider", kind.rawValue)])
                .set(Double(churning.count { $0.kind == kind }))
        }
        return registry.emitToBuffer()
    }

    /// The forwarding's upstream connections now (`ForwardingGauge`): open, idle ones included,
    /// and idle in the pools; set at each scrape, before `exposition`.
    public func upstreamConnections(open: Int, idle: Int) {
        registry.makeGauge(descriptor: Names.upstreamOpen).set(Double(open))
        registry.makeGauge(descriptor: Names.upstreamIdle).set(Double(idle))
    }

    /// `2xx`…`5xx`; `0` when no status reached the client.
    static func statusClass(_ status: Int) -> String {
        let slot = statusSlot(status)
        return slot == 0 ? "0" : "\(slot)xx"
    }

    /// `statusClass`'s place among a series' counters: 1-5 for `1xx`-`5xx`, 0 for `0`.
    static func statusSlot(_ status: Int) -> Int { (100..<600).contains(status) ? status / 100 : 0 }

    enum Names {
        static var exchanges: MetricNameDescriptor {
            name(
                "tap_exchanges", "total",
                "Requests through the tap, by the route's kind (none: no token route) and the status class the client got."
            )
        }
        static var verdicts: MetricNameDescriptor {
            name(
                "tap_tokens", "total",
                "Token exchanges through the tap by verdict: ok, warn, fail, unreadable, http_error, unreachable.")
        }
        static var upstreamDuration: MetricNameDescriptor {
            name("tap_upstream_duration", "seconds", "From the request sent upstream to the answer's end.")
        }
        static var fetchesPerToken: MetricNameDescriptor {
            name(
                "tap_fetches_per_token", "", "Each token fetch, observed at its ID's fetches per token lifetime so far."
            )
        }
        static var unread: MetricNameDescriptor {
            name(
                "tap_exchanges_unread", "total",
                "Requests forwarded but never read: the tap's reader fell behind and its queue was full.")
        }
        static var churning: MetricNameDescriptor {
            name(
                "tap_churning_ids", "",
                "IDs fetching more than --churn-limit times per token lifetime in the last hour.")
        }

        static var upstreamOpen: MetricNameDescriptor {
            name(
                "tap_upstream_connections", "",
                "Connections from the tap to its upstream open now, idle ones included.")
        }
        static var upstreamIdle: MetricNameDescriptor {
            name(
                "tap_upstream_connections_idle", "",
                "Connections from the tap to its upstream kept idle for reuse (at most --upstream-keepalive per event loop)."
            )
        }

        static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            ProviderMetrics.descriptor(metric, unit, help)
        }
    }
}
