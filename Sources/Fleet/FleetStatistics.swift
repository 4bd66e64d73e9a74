import FleetAuth
import Foundation

/// What the fleet rows of the dashboard show, computed at one instant.
public struct FleetSummary: Sendable, Equatable {
    public var providers: Int
    public var requestsPerSecond: Double
    public var counters: ProviderCounters
    public var p50LatencyMs: Double?
    public var p99LatencyMs: Double?
    public var expiringWithinMinute: Int

    public init(providers: Int, requestsPerSecond: Double, counters: ProviderCounters, p50LatencyMs: Double?,
                p99LatencyMs: Double?, expiringWithinMinute: Int) {
        self.providers = providers
        self.requestsPerSecond = requestsPerSecond
        self.counters = counters
        self.p50LatencyMs = p50LatencyMs
        self.p99LatencyMs = p99LatencyMs
        self.expiringWithinMinute = expiringWithinMinute
    }
}

/// Aggregates the events of many providers of one kind in bounded memory: a 10 s window of
/// request counts, the last 2,048 fetch latencies, and one expiry per provider.
public struct FleetStatistics: Sendable {
    public static let window = 10
    public static let latencySamples = 2048

    public private(set) var counters = ProviderCounters()
    private var buckets: [Int] = Array(repeating: 0, count: FleetStatistics.window)
    private var bucketSecond: Int?
    private var latencies: [Double] = []
    private var latencyCursor = 0
    private var expiries: [String: Date] = [:]

    public init() {}

    public mutating func record(_ event: ProviderEvent) {
        counters.record(event)
        switch event.kind {
        case .fetchStarted:
            advance(to: event.time)
            buckets[Self.second(event.time) % Self.window] += 1
        case .fetched(let token, let latency):
            addLatency(latency * 1000)
            expiries[event.id] = token.expiresAt
        case .cacheDropped, .expired:
            expiries[event.id] = nil
        case .idChanged(let from, _):
            if let from { expiries[from] = nil }
        default: break
        }
    }

    public func summary(now: Date, providers: Int) -> FleetSummary {
        var copy = self
        copy.advance(to: now)
        let sorted = latencies.sorted()
        return FleetSummary(
            providers: providers,
            requestsPerSecond: Double(copy.buckets.reduce(0, +)) / Double(Self.window),
            counters: counters,
            p50LatencyMs: Percentile.nearestRank(0.50, of: sorted),
            p99LatencyMs: Percentile.nearestRank(0.99, of: sorted),
            expiringWithinMinute: expiries.values.reduce(0) { n, exp in
                let left = exp.timeIntervalSince(now)
                return n + (left > 0 && left <= 60 ? 1 : 0)
            })
    }

    private static func second(_ date: Date) -> Int { Int(date.timeIntervalSince1970.rounded(.down)) }

    /// Zeroes the buckets of seconds that passed without a request.
    private mutating func advance(to date: Date) {
        let now = Self.second(date)
        guard let last = bucketSecond else { bucketSecond = now; return }
        guard now > last else { return }
        for s in (last + 1)...min(now, last + Self.window) { buckets[s % Self.window] = 0 }
        bucketSecond = now
    }

    private mutating func addLatency(_ ms: Double) {
        if latencies.count < Self.latencySamples {
            latencies.append(ms)
        } else {
            latencies[latencyCursor] = ms
            latencyCursor = (latencyCursor + 1) % Self.latencySamples
        }
    }
}
