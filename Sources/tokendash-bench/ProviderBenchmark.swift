import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenMetrics
import TokenProviders
import TokenReading

/// Cache-hit cost and request de-duplication of `CachingTokenProvider` against the samples' logic.
enum ProviderBenchmark {
    /// A backend that answers after `delay` with a valid token and counts requests.
    final class CountingBackend: TokenTransport {
        let delay: Duration
        // Guards the request count; hit by many concurrent callers.
        private let requests = Mutex(0)
        init(delay: Duration) { self.delay = delay }
        var count: Int { requests.withLock { $0 } }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            requests.withLock { $0 += 1 }
            try await Task.sleep(for: delay)
            let now = Int(Date().timeIntervalSince1970)
            let jwt = Self.jwt(id: request.url.lastPathComponent, iat: now, exp: now + 3600)
            return TransportResponse(
                status: 200, body: Data("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\((now + 3600) * 1000)}".utf8))
        }

        static func jwt(id: String, iat: Int, exp: Int) -> String {
            func part(_ o: [String: Any]) -> String {
                JWTInspector.base64URLEncode((try? JSONSerialization.data(withJSONObject: o)) ?? Data())
            }
            // Every header and claim Fleet Engine's rules ask for, or the provider refuses it.
            let account = "bench@tokendash.iam.gserviceaccount.com"
            return part(["alg": "RS256", "typ": "JWT", "kid": "bench"]) + "."
                + part([
                    "iss": account, "sub": account,
                    "aud": JWTInspector.fleetEngineAudience, "iat": iat, "exp": exp, "authorization": ["vehicleid": id],
                ]) + ".c2lnbmF0dXJlLWJlbmNo"
        }
    }

    static let endpoint = TokenEndpoint.sampleBackend(.driver, base: "http://bench.invalid")

    @Sendable static func run() async throws {
        let hit = try await cacheHit(calls: 200_000, rounds: 7)
        let stampede = try await coldStampede(callers: 1000)
        MintBenchmark.printTable([
            ("", "tokendash  |  samples' logic (baseline)"),
            (
                "cache-hit fetchToken, 2 event readers, ns/call",
                "\(MintBenchmark.format(hit.withReaders))  |  \(MintBenchmark.format(hit.baseline))"
            ),
            (
                "cache-hit fetchToken, no event reader, ns/call",
                "\(MintBenchmark.format(hit.withoutReaders))  |  \(MintBenchmark.format(hit.baseline))"
            ),
            (
                "cache-hit fetchToken, 2 event readers, calls/s",
                "\(MintBenchmark.format(1e9 / hit.withReaders))  |  \(MintBenchmark.format(1e9 / hit.baseline))"
            ),
            ("ratio ns/call tokendash (2 readers) / baseline", String(format: "%.2f", hit.withReaders / hit.baseline)),
            (
                "ratio ns/call tokendash (no reader) / baseline",
                String(format: "%.2f", hit.withoutReaders / hit.baseline)
            ),
            (
                "cache-hit fetchToken, 2 readers + --metrics, ns/call",
                "\(MintBenchmark.format(hit.withMetrics))  |  \(MintBenchmark.format(hit.baseline))"
            ),
            (
                "ratio ns/call tokendash (2 readers + metrics) / baseline",
                String(format: "%.2f", hit.withMetrics / hit.baseline)
            ),
            ("cache-hit events each reader got for \(hit.hits) hits", "\(hit.events)"),
            ("requests from 1,000 concurrent cold callers", "\(stampede.ours)  |  \(stampede.baseline)"),
        ])
        BenchReport.figure("cache_hit_ns", value: hit.withReaders, unit: "ns", baseline: hit.baseline)
        BenchReport.figure("cache_hit_metrics_ns", value: hit.withMetrics, unit: "ns", baseline: hit.baseline)
        BenchReport.say(
            "tokendash's hit takes a lock and counts it; the readers get the counts in a few events. Best of \(hit.rounds) rounds each; the baseline is a bare lock."
        )
        if stampede.ours != 1 { throw MintBenchmark.BenchmarkError("single-flight broke: \(stampede.ours) requests") }
    }

    struct CacheHitCost {
        /// Nanoseconds per call with the dashboard's two event readers attached and draining.
        var withReaders: Double
        /// The same with `--metrics`' collector subscribed as well (a `ProviderMetrics` draining).
        var withMetrics: Double
        /// Nanoseconds per call with nobody subscribed.
        var withoutReaders: Double
        var baseline: Double
        var rounds: Int
        /// Hits served while the readers listened, and the `.cacheHit` events that carried them.
        var hits: Int
        var events: Int
    }

    /// Nanoseconds per cache-hit call, the best of `rounds` runs of `calls` sequential calls after
    /// one warm-up fetch, for tokendash with two draining event readers (the dashboard's pane pump
    /// and fleet aggregator), the same plus `--metrics`' collector, tokendash with none, and the
    /// samples' logic, interleaved so that
    /// other load on the machine falls on all three alike.
    static func cacheHit(calls: Int, rounds: Int) async throws -> CacheHitCost {
        let context = VehicleAuthorizationContext(vehicleID: "vehicle-1")
        let events = EventBroadcaster()
        let readers = (0..<2).map { _ in
            let stream = events.subscribe(buffer: 1 << 16)
            return Task { () -> (hits: Int, events: Int) in
                var tally = (hits: 0, events: 0)
                for await event in stream {
                    if case .cacheHit(let count, _) = event.kind {
                        tally.hits += count
                        tally.events += 1
                    }
                }
                return tally
            }
        }
        let observed = DriverTokenProvider(endpoint: endpoint, transport: CountingBackend(delay: .zero), events: events)
        _ = try await observed.fetchToken(for: context)
        // The dashboard's two readers plus the `--metrics` collector, on a broadcaster of their own.
        let meteredEvents = EventBroadcaster()
        let meteredReaders = (0..<2).map { _ in
            let stream = meteredEvents.subscribe(buffer: 1 << 16)
            return Task { for await _ in stream {} }
        }
        let metrics = ProviderMetrics(members: [.driver: ["vehicle-1"]])
        let collector = Task { [stream = meteredEvents.subscribe(buffer: 1 << 16)] in await metrics.consume(stream) }
        let metered = DriverTokenProvider(
            endpoint: endpoint, transport: CountingBackend(delay: .zero), events: meteredEvents)
        _ = try await metered.fetchToken(for: context)
        let unobserved = DriverTokenProvider(endpoint: endpoint, transport: CountingBackend(delay: .zero))
        _ = try await unobserved.fetchToken(for: context)
        let baseline = SampleLogicProvider(endpoint: endpoint, transport: CountingBackend(delay: .zero))
        _ = try await baseline.fetchToken(id: "vehicle-1")

        var best = (
            withReaders: Double.infinity, withMetrics: Double.infinity, withoutReaders: Double.infinity,
            baseline: Double.infinity
        )
        for _ in 0..<rounds {
            let withReaders = try await time(calls) { _ = try await observed.fetchToken(for: context) }
            let withMetrics = try await time(calls) { _ = try await metered.fetchToken(for: context) }
            let withoutReaders = try await time(calls) { _ = try await unobserved.fetchToken(for: context) }
            let sample = try await time(calls) { _ = try await baseline.fetchToken(id: "vehicle-1") }
            best = (
                min(best.withReaders, withReaders), min(best.withMetrics, withMetrics),
                min(best.withoutReaders, withoutReaders), min(best.baseline, sample)
            )
        }
        meteredEvents.finish()
        for reader in meteredReaders { await reader.value }
        await collector.value
        // Every hit must reach the series too.
        let hitsSeries = #"tokendash_cache_hits_total{provider="driver"} "#
        let scraped = String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix(hitsSeries) }.flatMap { Int($0.dropFirst(hitsSeries.count)) }
        guard scraped == calls * rounds else {
            throw MintBenchmark.BenchmarkError("the metrics counted \(scraped ?? -1) cache hits of \(calls * rounds)")
        }
        // Every hit must reach both readers, in far fewer events than hits.
        events.finish()
        var tallies: [(hits: Int, events: Int)] = []
        for reader in readers { tallies.append(await reader.value) }
        let hits = calls * rounds
        guard tallies.allSatisfy({ $0.hits == hits }) else {
            throw MintBenchmark.BenchmarkError("readers counted \(tallies.map(\.hits)) cache hits of \(hits)")
        }
        return CacheHitCost(
            withReaders: best.withReaders, withMetrics: best.withMetrics, withoutReaders: best.withoutReaders,
            baseline: best.baseline,
            rounds: rounds, hits: hits, events: tallies[0].events)
    }

    /// Backend requests caused by `callers` concurrent callers on a cold cache.
    static func coldStampede(callers: Int) async throws -> (ours: Int, baseline: Int) {
        let oursBackend = CountingBackend(delay: .milliseconds(20))
        let ours = DriverTokenProvider(endpoint: endpoint, transport: oursBackend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask { _ = try await ours.fetchToken(for: VehicleAuthorizationContext(vehicleID: "v")) }
            }
            try await group.waitForAll()
        }
        let baselineBackend = CountingBackend(delay: .milliseconds(20))
        let baseline = SampleLogicProvider(endpoint: endpoint, transport: baselineBackend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers { group.addTask { _ = try await baseline.fetchToken(id: "v") } }
            try await group.waitForAll()
        }
        return (oursBackend.count, baselineBackend.count)
    }

    static func time(_ n: Int, _ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<n { try await body() }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1e9 / Double(n) + Double(elapsed.components.attoseconds) / 1e9
            / Double(n)
    }
}
