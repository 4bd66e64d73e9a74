import Fleet
import FleetEngineAPI
import FleetTables
import Foundation
import Pacing
import Prometheus
import ProviderEvents
import ProviderVocabulary
import Synchronization

/// Provider events as Prometheus series, through swift-prometheus: counters and the latency
/// histogram are updated as events arrive; the gauges that depend on the clock (providers by
/// state, seconds to the soonest expiry) are computed when scraped. Every series carries a
/// `provider` label (the kind) and none an ID, so a 20,000-member fleet makes the same few series
/// as one SDK.
public final class ProviderMetrics: Sendable {
    /// The registry the series live in; `exposition(now:)` refreshes the gauges and renders it.
    public let registry: PrometheusCollectorRegistry

    /// One kind's series, made up front so each exists (at 0) from the first scrape on.
    private struct Series: Sendable {
        var requests: [RequestResult: Counter]
        var hits: Counter
        var latency: ValueHistogram
        var idChanges: Counter
        var clockSkew: Gauge
        var soonestExpiry: Gauge
        var states: [MemberStatus: Gauge]
    }

    /// Fetch latency buckets in seconds: a loopback mint takes milliseconds, a slow backend seconds.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private let series: [ProviderKind: Series]
    /// The run's paces toward its backends, read at each scrape: a ramp's saw or a stall shows in
    /// Prometheus as it does on stderr. Empty without a fleet.
    private let paces: [(status: @Sendable () -> Pacer.Status, rate: Gauge, active: Gauge)]
    private let providers: [ProviderKind: Int]
    // Guards each kind's member records (expiry, failures): written by `record`, read by a scrape.
    private let members: Mutex<[ProviderKind: FleetStatistics]>

    /// `members` lists each kind's IDs in their SDKs' order (a fleet's, or one each); events of
    /// other kinds are ignored.
    /// `pacing`: the run's paces (the ramp's, Fleet Engine calls'), shown as
    /// `tokendash_pace_calls_per_second` and `tokendash_pace_active` by `pacer`.
    public init(
        members: [ProviderKind: [String]], pacing: FleetPacing? = nil,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
    ) {
        self.registry = registry
        if let pacing {
            let ramp = pacing.ramp
            let fleetEngine = pacing.fleetEngine
            let sources: [(String, @Sendable () -> Pacer.Status)] = [
                ("ramp", { ramp.status }), ("fleet_engine", { fleetEngine.status }),
            ]
            paces = sources.map { name, status in
                (
                    status, registry.makeGauge(descriptor: Names.pace, labels: [("pacer", name)]),
                    registry.makeGauge(descriptor: Names.paceActive, labels: [("pacer", name)])
                )
            }
        } else {
            paces = []
        }
        providers = members.mapValues(\.count)
        self.members = Mutex(members.mapValues { FleetStatistics(ids: $0) })
        var series: [ProviderKind: Series] = [:]
        for kind in members.keys {
            let label = [("provider", kind.rawValue)]
            func labels(_ name: String, _ value: String) -> [(String, String)] { label + [(name, value)] }
            series[kind] = Series(
                requests: Dictionary(
                    uniqueKeysWithValues: RequestResult.allCases.map {
                        ($0, registry.makeCounter(descriptor: Names.requests, labels: labels("result", $0.rawValue)))
                    }),
                hits: registry.makeCounter(descriptor: Names.cacheHits, labels: label),
                latency: registry.makeValueHistogram(
                    descriptor: Names.fetchDuration, labels: label, buckets: Self.latencyBuckets),
                idChanges: registry.makeCounter(descriptor: Names.idChanges, labels: label),
                clockSkew: registry.makeGauge(descriptor: Names.clockSkew, labels: label),
                soonestExpiry: registry.makeGauge(descriptor: Names.soonestExpiry, labels: label),
                states: Dictionary(
                    uniqueKeysWithValues: MemberStatus.allCases.map {
                        ($0, registry.makeGauge(descriptor: Names.providers, labels: labels("state", $0.label)))
                    }))
            // Unknown until a response carries a Date header: NaN, which no alert threshold matches.
            series[kind]?.clockSkew.set(Double.nan)
            series[kind]?.soonestExpiry.set(Double.nan)
        }
        self.series = series
    }

    /// Reads `stream` until it finishes (the session's broadcaster at shutdown).
    public func consume(_ stream: AsyncStream<ProviderEvent>) async {
        for await event in stream { record(event) }
    }

    public func record(_ event: ProviderEvent) {
        guard let s = series[event.provider] else { return }
        switch event.kind {
        case .cacheHit(let count, _):
            s.hits.increment(by: Int64(count))
        case .fetched(let token, let latency):
            s.requests[.ok]?.increment()
            s.latency.record(latency)
            if let skew = token.clockSkew { s.clockSkew.set(skew) }
        case .fetchFailed(let error, let latency):
            guard let result = RequestResult(error) else { break }
            s.requests[result]?.increment()
            s.latency.record(latency)
            if case .rejected(let results) = error {
                for failure in results.failures {
                    registry.makeCounter(
                        descriptor: Names.ruleFailures,
                        labels: [("provider", event.provider.rawValue), ("rule", failure.rule.name)]
                    ).increment()
                }
            }
        case .idChanged:
            s.idChanges.increment()
        case .fleetEngineCall(let answer):
            // Methods and statuses are few (six methods, gRPC's seventeen codes), so the series stay few.
            registry.makeCounter(
                descriptor: Names.fleetEngineCalls,
                labels: [
                    ("provider", event.provider.rawValue), ("method", answer.method.rawValue),
                    ("status", Self.statusLabel(answer.status)),
                ]
            ).increment()
            if answer.verdictDisagrees {
                registry.makeCounter(
                    descriptor: Names.verdictDisagreements, labels: [("provider", event.provider.rawValue)]
                ).increment()
            }
        case .breach(let breach):
            // Five kinds of breach, so as few series per provider.
            registry.makeCounter(
                descriptor: Names.contractBreaches,
                labels: [
                    ("provider", event.provider.rawValue), ("breach", breach.kind.rawValue),
                ]
            ).increment()
        default:
            break
        }
        members.withLock { $0[event.provider]?.record(event) }
    }

    /// A status as a label value: a backend's own status text is not trusted to be one of
    /// gRPC's names, so anything else is `OTHER` and cannot make a series per message.
    static func statusLabel(_ status: String) -> String {
        known.contains(status) ? status : "OTHER"
    }

    private static let known = Set(FleetEngineAnswer.statusNames)

    /// Sets the clock-dependent gauges for `now`, then renders every series in the text format.
    public func exposition(now: Date = Date()) -> [UInt8] {
        let standings = members.withLock { all in
            all.reduce(into: [ProviderKind: FleetStanding]()) {
                $0[$1.key] = $1.value.standing(now: now, providers: providers[$1.key], withSoonestExpiry: true)
            }
        }
        for (kind, standing) in standings {
            guard let s = series[kind] else { continue }
            for (status, gauge) in s.states { gauge.set(Double(standing.states[status] ?? 0)) }
            s.soonestExpiry.set(standing.soonestExpiry.map { $0.timeIntervalSince(now) } ?? .nan)
        }
        for pace in paces {
            let status = pace.status()
            pace.rate.set(status.rate)
            pace.active.set(status.active ? 1.0 : 0.0)
        }
        return registry.emitToBuffer()
    }

    /// The series' names and help, `tokendash_…`, units as suffixes.
    /// Computed: swift-prometheus' descriptor is not Sendable, so it cannot be a stored static.
    enum Names {
        static var requests: MetricNameDescriptor {
            name("requests", "total", "Requests to the token backend, by how they ended.")
        }
        static var cacheHits: MetricNameDescriptor {
            name("cache_hits", "total", "Token calls answered from the cache without a request.")
        }
        static var fetchDuration: MetricNameDescriptor {
            name("fetch_duration", "seconds", "Time from request to a usable token or a failure.")
        }
        static var idChanges: MetricNameDescriptor {
            name("id_changes", "total", "Trip or vehicle ID switches of the simulated SDKs.")
        }
        static var clockSkew: MetricNameDescriptor {
            name(
                "clock_skew", "seconds",
                "This machine's clock minus the backend's, from the last response's Date header.")
        }
        static var soonestExpiry: MetricNameDescriptor {
            name(
                "soonest_token_expiry", "seconds",
                "Seconds until the soonest-expiring valid token expires; NaN when none is held.")
        }
        static var providers: MetricNameDescriptor {
            name("providers", "", "Simulated SDKs by the state of their token.")
        }
        static var pace: MetricNameDescriptor {
            name(
                "pace", "calls_per_second",
                "The pace of first token calls (pacer=ramp) or of Fleet Engine calls (pacer=fleet_engine) now, as the backend's answers set it."
            )
        }
        static var paceActive: MetricNameDescriptor {
            name("pace_active", "", "1 while the pacer is pacing calls (a ramp still starting SDKs), else 0.")
        }
        static var ruleFailures: MetricNameDescriptor {
            name("rule_failures", "total", "Tokens refused by Fleet Engine's rules, by rule.")
        }

        static var fleetEngineCalls: MetricNameDescriptor {
            name(
                "fleet_engine_calls", "total",
                "The simulated SDKs' calls to Fleet Engine with their tokens, by method and answer (gRPC status).")
        }
        static var contractBreaches: MetricNameDescriptor {
            name(
                "contract_breaches", "total",
                "Breaches of the SDK's contract by the customer's own provider class (--driver-source, --consumer-source), by kind."
            )
        }
        static var verdictDisagreements: MetricNameDescriptor {
            name(
                "fleet_engine_verdict_disagreements", "total",
                "Fleet Engine answers that contradict tokendash's rules on the token used.")
        }

        static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "tokendash", metricName: metric, unitName: unit, helpText: help)
        }
    }
}

extension ProviderMetrics {
    /// A series in tokendash's namespace (`tokendash_<metric>_<unit>`), for the tap's own metrics too.
    public static func descriptor(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        Names.name(metric, unit, help)
    }
}
