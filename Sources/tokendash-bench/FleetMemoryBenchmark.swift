import Fleet
import Foundation
import HTTPTransport
import ProviderEvents
import ProviderVocabulary
import TokenServer

/// Memory of a fleet (10,000 + 10,000, then 50,000 + 50,000) fetching from the embedded server
/// until every provider holds a token, then updating for a while; against the server alone,
/// measured just before. First, where one provider's bytes go.
enum FleetMemoryBenchmark {
    /// Issue 25's bound on what a provider keeps, its token included.
    static let heldBound = 4096

    @Sendable static func run() async throws {
        try await breakdown()
        let small = try await run(perKind: 10_000)
        let large = try await run(perKind: 50_000)
        // What one more provider costs: the growth between the two fleets over the providers
        // added, so the process's fixed cost (code paged in, thread arenas, the server's buffers),
        // which the smaller fleet shares among fewer providers, is left out.
        let added = large.providers - small.providers
        let marginal = (large.heldKiB - small.heldKiB) * 1024 / added
        let marginalTrimmed = (large.trimmedKiB - small.trimmedKiB) * 1024 / added
        MintBenchmark.printTable([
            (
                "RSS a provider adds, \(small.providers.formatted()) to \(large.providers.formatted())",
                "\(marginal) B held, \(marginalTrimmed) B once freed pages are returned (bound \(heldBound) B: \(marginal <= heldBound ? "within" : "OVER"))"
            )
        ])
        BenchReport.figure(
            "fleet_marginal_bytes_per_provider", value: Double(marginal), unit: "B", baseline: Double(heldBound))
    }

    static func breakdown() async throws {
        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(lifetime: 3600))
        let base = try await server.start().absoluteString
        let transport = try HTTPClientTransport()
        let endpoint = TokenEndpoint.sampleBackend(.consumer, base: base)
        let id = "trip-00001"
        let response = try await transport.send(TransportRequest(url: try endpoint.url(for: id)))
        let rows = try HeldBytes.breakdown(response: response, endpoint: endpoint, id: id, transport: transport)
        await server.stop()
        await transport.shutdown()
        MintBenchmark.printTable(rows)
        BenchReport.say("")
    }

    /// One fleet's figures; its RSS above the server alone, as held and as trimmed, in KiB.
    static func run(perKind: Int) async throws -> (providers: Int, heldKiB: Int, trimmedKiB: Int) {
        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(lifetime: 300))
        let base = try await server.start().absoluteString
        // The peak of this run only, not of the one before it.
        HeldBytes.releaseFreed()
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let baseline = residentKiB("VmHWM")
        let baselineNow = residentKiB("VmRSS")
        let heldBefore = HeldBytes.now() ?? 0
        let transport = try HTTPClientTransport()
        let events = EventBroadcaster()
        let stream = events.subscribe(buffer: 1 << 16)
        let counter = Task { () -> (Int, Int) in
            var fetched = 0
            var failed = 0
            for await e in stream {
                if case .fetched = e.kind { fetched += 1 }
                if case .fetchFailed = e.kind { failed += 1 }
            }
            return (fetched, failed)
        }
        let (trips, vehicles) = FleetMemoryBenchmark.fleet(
            perKind: perKind, base: base, transport: transport, events: events)
        let start = ContinuousClock.now
        // Cold start in slices of 1,000, as the update loop does, then three all-hit updates.
        for lower in stride(from: 0, to: perKind, by: 1000) {
            async let a: Void = trips.update(lower..<(lower + 1000))
            async let b: Void = vehicles.update(lower..<(lower + 1000))
            _ = await (a, b)
        }
        let warm = ContinuousClock.now - start
        for _ in 0..<3 {
            async let a: Void = trips.update()
            async let b: Void = vehicles.update()
            _ = await (a, b)
        }
        events.finish()
        let (fetched, failed) = await counter.value
        let peak = residentKiB("VmHWM")
        // Held while every provider has its token and nothing is in flight: what a provider costs
        // to keep, apart from the burst of a cold start.
        let steady = residentKiB("VmRSS")
        let heldAfter = HeldBytes.now() ?? 0
        // The same, once malloc has handed back the pages the cold start's garbage left free:
        // what the providers hold, apart from the allocator's fragmentation.
        HeldBytes.releaseFreed()
        let trimmed = residentKiB("VmRSS")
        let providers = 2 * perKind
        let live = (heldAfter - heldBefore) / providers
        let rss = (steady - baselineNow) * 1024 / providers
        withExtendedLifetime((trips, vehicles)) {}
        await server.stop()
        await transport.shutdown()
        let warmSeconds = Double(warm.components.seconds) + Double(warm.components.attoseconds) / 1e18
        let size = providers.formatted()
        MintBenchmark.printTable([
            ("providers", size),
            ("tokens fetched / failed", "\(fetched) / \(failed)"),
            (
                "cold start: all tokens in",
                String(format: "%.1f s (%.0f fetches/s)", warmSeconds, Double(fetched) / warmSeconds)
            ),
            ("baseline: peak RSS, server alone", "\(baseline / 1024) MiB"),
            (
                "peak RSS with the fleet",
                "\(peak / 1024) MiB (+\((peak - baseline) / 1024) MiB, \((peak - baseline) * 1024 / providers) bytes/provider)"
            ),
            (
                "RSS held after warm-up",
                "\(steady / 1024) MiB (+\((steady - baselineNow) / 1024) MiB, \(rss) bytes/provider)"
            ),
            (
                "RSS held once freed pages are returned (malloc_trim)",
                "\(trimmed / 1024) MiB (+\((trimmed - baselineNow) / 1024) MiB, \((trimmed - baselineNow) * 1024 / providers) bytes/provider)"
            ),
            (
                "live heap held after warm-up (malloc's count)",
                "+\((heldAfter - heldBefore) / 1_048_576) MiB, \(live) bytes/provider"
            ),
            (
                "RSS a provider held, the process's fixed cost shared in",
                rss <= heldBound ? "within \(heldBound) B" : "over \(heldBound) B (see the next figure)"
            ),
        ])
        let suffix = perKind == 10_000 ? "" : "_\(providers / 1000)k"
        BenchReport.figure("fleet_cold_start_s" + suffix, value: warmSeconds, unit: "s", baseline: nil)
        BenchReport.figure(
            "fleet_peak_bytes_per_provider" + suffix, value: Double((peak - baseline) * 1024 / providers), unit: "B",
            baseline: nil)
        BenchReport.figure(
            "fleet_held_bytes_per_provider" + suffix, value: Double(rss), unit: "B", baseline: Double(heldBound))
        BenchReport.figure(
            "fleet_trimmed_bytes_per_provider" + suffix, value: Double((trimmed - baselineNow) * 1024 / providers),
            unit: "B", baseline: Double(heldBound))
        BenchReport.figure(
            "fleet_live_bytes_per_provider" + suffix, value: Double(live), unit: "B", baseline: Double(heldBound))
        BenchReport.say("")
        return (providers, steady - baselineNow, trimmed - baselineNow)
    }

    /// `perKind` trips and as many vehicles against the embedded server at `base`, as a session makes them.
    static func fleet(perKind: Int, base: String, transport: any TokenTransport, events: EventBroadcaster)
        -> (SimulatedSDKs<TripAuthorizationContext>, SimulatedSDKs<VehicleAuthorizationContext>)
    {
        let trips = SimulatedSDKs<TripAuthorizationContext>(
            ids: (0..<perKind).map { IDSequence.fleetID(prefix: "trip", index: $0, count: perKind) },
            endpoint: .sampleBackend(.consumer, base: base), transport: transport, events: events, refreshMargin: 300)
        let vehicles = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: (0..<perKind).map { IDSequence.fleetID(prefix: "vehicle", index: $0, count: perKind) },
            endpoint: .sampleBackend(.driver, base: base), transport: transport, events: events, refreshMargin: 300)
        return (trips, vehicles)
    }

    /// A field of /proc/self/status in KiB: VmHWM (peak resident) or VmRSS (resident now).
    static func residentKiB(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
