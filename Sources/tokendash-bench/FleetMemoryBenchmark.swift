import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import TokenServer

/// Peak memory of a 10,000-trip + 10,000-vehicle fleet fetching from the embedded server until every
/// provider holds a token, then updating for a while; against the peak of the server alone.
enum FleetMemoryBenchmark {
    static let perKind = 10_000

    @Sendable static func run() async throws {
        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(lifetime: 300))
        let base = try await server.start().absoluteString
        let baseline = residentKiB("VmHWM")
        let baselineNow = residentKiB("VmRSS")
        let transport = try HTTPClientTransport()
        let events = EventBroadcaster()
        let stream = events.subscribe(buffer: 1 << 16)
        let counter = Task { () -> (Int, Int) in
            var fetched = 0, failed = 0
            for await e in stream {
                if case .fetched = e.kind { fetched += 1 }
                if case .fetchFailed = e.kind { failed += 1 }
            }
            return (fetched, failed)
        }
        let trips = SimulatedSDKs<TripAuthorizationContext>(
            ids: (0..<perKind).map { IDSequence.fleetID(prefix: "trip", index: $0, count: perKind) },
            endpoint: .sampleBackend(.consumer, base: base), transport: transport, events: events, refreshMargin: 300)
        let vehicles = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: (0..<perKind).map { IDSequence.fleetID(prefix: "vehicle", index: $0, count: perKind) },
            endpoint: .sampleBackend(.driver, base: base), transport: transport, events: events, refreshMargin: 300)
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
        await server.stop()
        await transport.shutdown()
        let warmSeconds = Double(warm.components.seconds) + Double(warm.components.attoseconds) / 1e18
        MintBenchmark.printTable([
            ("providers", "\(2 * perKind)"),
            ("tokens fetched / failed", "\(fetched) / \(failed)"),
            ("cold start: all tokens in", String(format: "%.1f s (%.0f fetches/s)", warmSeconds, Double(fetched) / warmSeconds)),
            ("baseline: peak RSS, server alone", "\(baseline / 1024) MiB"),
            ("peak RSS with the fleet", "\(peak / 1024) MiB (+\((peak - baseline) / 1024) MiB, \((peak - baseline) * 1024 / (2 * perKind)) bytes/provider)"),
            ("RSS held after warm-up", "\(steady / 1024) MiB (+\((steady - baselineNow) / 1024) MiB, \((steady - baselineNow) * 1024 / (2 * perKind)) bytes/provider)"),
        ])
        BenchReport.figure("fleet_cold_start_s", value: warmSeconds, unit: "s", baseline: nil)
        BenchReport.figure("fleet_peak_bytes_per_provider", value: Double((peak - baseline) * 1024 / (2 * perKind)), unit: "B", baseline: nil)
        BenchReport.figure("fleet_held_bytes_per_provider", value: Double((steady - baselineNow) * 1024 / (2 * perKind)), unit: "B", baseline: nil)
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
