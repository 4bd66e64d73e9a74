import Faults
import Foundation
import Prometheus
import ProviderVocabulary

/// The embedded server's Prometheus series, through swift-prometheus: tokens minted and mint
/// latency by kind, requests by route and status, and the faults switched on (set when scraped).
/// Labels name kinds and routes, never an ID.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let minted: [ProviderKind: Counter]
    private let mintDuration: [ProviderKind: ValueHistogram]
    private let faults: [ProviderKind: Gauge]

    /// Mint latency buckets in seconds: one RS256 signature takes about half a millisecond.
    static let mintBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    init() {
        let registry = registry
        func each<T>(_ make: ([(String, String)]) -> T) -> [ProviderKind: T] {
            Dictionary(uniqueKeysWithValues: ProviderKind.allCases.map { ($0, make([("kind", $0.rawValue)])) })
        }
        minted = each { registry.makeCounter(descriptor: Names.minted, labels: $0) }
        mintDuration = each {
            registry.makeValueHistogram(descriptor: Names.mintDuration, labels: $0, buckets: Self.mintBuckets)
        }
        faults = each { registry.makeGauge(descriptor: Names.faults, labels: $0) }
    }

    func minted(_ kind: ProviderKind, seconds: Double) {
        minted[kind]?.increment()
        mintDuration[kind]?.record(seconds)
    }

    /// One answered request; `route` is a template (`/token/consumer`), not the path with its ID.
    func answered(route: String, status: String) {
        registry.makeCounter(descriptor: Names.requests, labels: [("route", route), ("status", status)]).increment()
    }

    /// The text format, with the fault gauges set from `active` first.
    func exposition(active: [ProviderKind: FaultSetting]) -> [UInt8] {
        for (kind, gauge) in faults { gauge.set(to: active[kind] == nil ? 0.0 : 1.0) }
        return registry.emitToBuffer()
    }

    /// Computed: swift-prometheus' descriptor is not Sendable, so it cannot be a stored static.
    enum Names {
        static var minted: MetricNameDescriptor { name("tokens_minted", "total", "Tokens signed, by kind.") }
        static var mintDuration: MetricNameDescriptor {
            name("mint_duration", "seconds", "Time to sign one token, by kind.")
        }
        static var faults: MetricNameDescriptor {
            name("active_faults", "", "1 while a fault is switched on for the kind's token route.")
        }
        static var requests: MetricNameDescriptor {
            name("requests", "total", "Requests answered, by route and HTTP status (dropped: closed unanswered).")
        }

        static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(
                namespace: "tokendash", subsystem: "server", metricName: metric, unitName: unit, helpText: help)
        }
    }
}
