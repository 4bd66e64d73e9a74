import FleetAuth
import Foundation
import Synchronization

/// Cache-hit cost and request de-duplication of `CachingTokenProvider` against the samples' logic.
enum ProviderBenchmark {
    /// A backend that answers after `delay` with a valid token and counts requests.
    final class CountingBackend: TokenTransport {
        let delay: Duration
        // Guards the request count; hit by many concurrent callers.
        private let requests = Mutex(0)
        init(delay: Duration) { self.delay = delay }
        var count: Int { requests.withLock { $0 } }

        func get(_ request: TransportRequest) async throws -> TransportResponse {
            requests.withLock { $0 += 1 }
            try await Task.sleep(for: delay)
            let now = Int(Date().timeIntervalSince1970)
            let jwt = Self.jwt(id: request.url.lastPathComponent, iat: now, exp: now + 3600)
            return TransportResponse(status: 200, body: Data("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\((now + 3600) * 1000)}".utf8))
        }

        static func jwt(id: String, iat: Int, exp: Int) -> String {
            func part(_ o: [String: Any]) -> String {
                JWTInspector.base64URLEncode((try? JSONSerialization.data(withJSONObject: o)) ?? Data())
            }
            // Every header and claim Fleet Engine's rules ask for, or the provider refuses it.
            let account = "bench@tokendash.iam.gserviceaccount.com"
            return part(["alg": "RS256", "typ": "JWT", "kid": "bench"]) + "." + part([
                "iss": account, "sub": account,
                "aud": JWTInspector.fleetEngineAudience, "iat": iat, "exp": exp, "authorization": ["vehicleid": id],
            ]) + ".c2lnbmF0dXJlLWJlbmNo"
        }
    }

    static let endpoint = TokenEndpoint.sampleBackend(.driver, base: "http://bench.invalid")

    @Sendable static func run() async throws {
        let calls = 200_000
        let hit = try await cacheHit(calls: calls)
        let stampede = try await coldStampede(callers: 1000)
        MintBenchmark.printTable([
            ("", "tokendash  |  samples' logic (baseline)"),
            ("cache-hit fetchToken, ns/call", "\(MintBenchmark.format(hit.ours))  |  \(MintBenchmark.format(hit.baseline))"),
            ("cache-hit fetchToken, calls/s", "\(MintBenchmark.format(1e9 / hit.ours))  |  \(MintBenchmark.format(1e9 / hit.baseline))"),
            ("ratio ns/call tokendash / baseline", String(format: "%.2f", hit.ours / hit.baseline)),
            ("requests from 1,000 concurrent cold callers", "\(stampede.ours)  |  \(stampede.baseline)"),
        ])
        BenchReport.say("tokendash's hit publishes an event and hops onto an actor; the baseline is a bare lock.")
        if stampede.ours != 1 { throw MintBenchmark.BenchmarkError("single-flight broke: \(stampede.ours) requests") }
    }

    /// Nanoseconds per cache-hit call, over `calls` sequential calls after one warm-up fetch.
    static func cacheHit(calls: Int) async throws -> (ours: Double, baseline: Double) {
        let context = VehicleAuthorizationContext(vehicleID: "vehicle-1")
        let ours = DriverTokenProvider(endpoint: endpoint, transport: CountingBackend(delay: .zero))
        _ = try await ours.fetchToken(for: context)
        let oursNs = try await time(calls) { _ = try await ours.fetchToken(for: context) }
        let baseline = SampleLogicProvider(endpoint: endpoint, transport: CountingBackend(delay: .zero))
        _ = try await baseline.fetchToken(id: "vehicle-1")
        let baselineNs = try await time(calls) { _ = try await baseline.fetchToken(id: "vehicle-1") }
        return (oursNs, baselineNs)
    }

    /// Backend requests caused by `callers` concurrent callers on a cold cache.
    static func coldStampede(callers: Int) async throws -> (ours: Int, baseline: Int) {
        let oursBackend = CountingBackend(delay: .milliseconds(20))
        let ours = DriverTokenProvider(endpoint: endpoint, transport: oursBackend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers { group.addTask { _ = try await ours.fetchToken(for: VehicleAuthorizationContext(vehicleID: "v")) } }
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
        return Double(elapsed.components.seconds) * 1e9 / Double(n) + Double(elapsed.components.attoseconds) / 1e9 / Double(n)
    }
}
