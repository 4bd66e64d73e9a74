import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import Synchronization
import TokenServer

/// 50,000 trips + 50,000 vehicles against the embedded server with one-hour tokens, on their
/// update loops as `watch` runs them: started with the default ramp (1,000 new SDKs a second) and
/// held for 10 minutes, against the same fleet started all at once (`--ramp 0`) in the same run.
/// Not among the default sections (it takes about 14 minutes): `tokendash-bench ramp`.
/// `TOKENDASH_BENCH_HOLD` (seconds, default 600) and `TOKENDASH_BENCH_FLEET` (SDKs a side,
/// default 50,000) make a shorter run.
enum FleetRampBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let perKind = environment["TOKENDASH_BENCH_FLEET"].flatMap(Int.init).map { min(100_000, max(1, $0)) } ?? 50_000
    static let hold = environment["TOKENDASH_BENCH_HOLD"].flatMap(Double.init).map { min(3600, max(0, $0)) } ?? 600

    struct Outcome {
        var started: Duration = .zero
        var allHeldAfter: Duration?
        var startFailures = 0
        var holdFailures = 0
        var fetched = 0
        var withoutToken = 0
        var peakRSS = 0
        /// RSS at the end, the fleet still holding its tokens.
        var endRSS = 0
    }

    @Sendable static func run() async throws {
        let total = 2 * perKind
        // The baseline first: a stampede, stopped once every SDK holds a token (or after 3 minutes).
        let stampede = try await run(ramp: FleetRamp(duration: 0), hold: 0, limit: .seconds(180))
        let ramp = FleetRamp.atDefaultRate(total: total)
        let ramped = try await run(ramp: ramp, hold: hold, limit: .seconds(ramp.duration + 180))
        func held(_ o: Outcome) -> String { o.allHeldAfter.map { "all \(total.formatted()) held a token after \(shown($0))" } ?? "\(o.withoutToken) never got one" }
        MintBenchmark.printTable([
            ("", "default ramp (\(Int(ramp.duration)) s)  |  --ramp 0, every SDK at once (baseline)"),
            ("SDKs", "\(total.formatted())  |  \(total.formatted())"),
            ("start", "\(held(ramped))  |  \(held(stampede))"),
            ("fetch failures while starting", "\(ramped.startFailures)  |  \(stampede.startFailures)"),
            ("fetch failures holding \(Int(hold)) s", "\(ramped.holdFailures)  |  (not held)"),
            ("SDKs without a valid token at the end", "\(ramped.withoutToken)  |  \(stampede.withoutToken)"),
            ("peak RSS", "\(ramped.peakRSS / 1024) MiB  |  \(stampede.peakRSS / 1024) MiB"),
            ("RSS at the end, tokens held", "\(ramped.endRSS / 1024) MiB  |  \(stampede.endRSS / 1024) MiB"),
        ])
        BenchReport.figure("ramp_start_failures", value: Double(ramped.startFailures), unit: "failures", baseline: Double(stampede.startFailures))
        BenchReport.figure("ramp_hold_failures", value: Double(ramped.holdFailures), unit: "failures", baseline: nil)
        BenchReport.figure("ramp_all_held_s", value: ramped.allHeldAfter.map(seconds) ?? -1, unit: "s",
                           baseline: stampede.allHeldAfter.map(seconds) ?? -1)
        if ramped.startFailures + ramped.holdFailures + ramped.withoutToken > 0 {
            throw MintBenchmark.BenchmarkError("the ramped fleet had \(ramped.startFailures + ramped.holdFailures) failures, \(ramped.withoutToken) SDKs without a token")
        }
    }

    /// One fleet on its update loops (5 s, as `watch`), counting failures until every SDK holds a
    /// token, then for `hold` seconds more.
    static func run(ramp: FleetRamp, hold: TimeInterval, limit: Duration) async throws -> Outcome {
        HeldBytes.releaseFreed()
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(lifetime: 3600))
        let base = try await server.start().absoluteString
        let transport = try HTTPClientTransport()
        let events = EventBroadcaster()
        let stream = events.subscribe(buffer: 1 << 16)
        // Failures before every SDK held its token, and after; `holding` flips between.
        let holding = Flag()
        let counter = Task { () -> (start: Int, hold: Int, fetched: Int) in
            var start = 0, held = 0, fetched = 0
            for await e in stream {
                switch e.kind {
                case .fetched: fetched += 1
                case .fetchFailed: if holding.value.load(ordering: .relaxed) { held += 1 } else { start += 1 }
                default: break
                }
            }
            return (start, held, fetched)
        }
        let (trips, vehicles) = FleetMemoryBenchmark.fleet(perKind: perKind, base: base, transport: transport, events: events)
        let begin = ContinuousClock.now
        let loops = Task {
            async let a: Void = trips.run(interval: 5, ramp: ramp)
            async let b: Void = vehicles.run(interval: 5, ramp: ramp)
            _ = await (a, b)
        }
        var outcome = Outcome()
        // Polled every second: the SDKs holding no valid token, as `watch` judges at its end.
        while ContinuousClock.now - begin < limit {
            try? await Task.sleep(for: .seconds(1))
            let now = Date()
            let missing = await trips.withoutValidToken(at: now).count + vehicles.withoutValidToken(at: now).count
            if missing == 0 {
                outcome.allHeldAfter = ContinuousClock.now - begin
                break
            }
        }
        holding.value.store(true, ordering: .relaxed)
        if outcome.allHeldAfter != nil, hold > 0 { try? await Task.sleep(for: .seconds(hold)) }
        let now = Date()
        outcome.withoutToken = await trips.withoutValidToken(at: now).count + vehicles.withoutValidToken(at: now).count
        outcome.endRSS = FleetMemoryBenchmark.residentKiB("VmRSS")
        loops.cancel()
        await loops.value
        outcome.peakRSS = FleetMemoryBenchmark.residentKiB("VmHWM")
        events.finish()
        (outcome.startFailures, outcome.holdFailures, outcome.fetched) = await counter.value
        await server.stop()
        await transport.shutdown()
        return outcome
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
    static func shown(_ d: Duration) -> String { String(format: "%.0f s", seconds(d)) }

    /// Set once the fleet holds its tokens; read by the task counting failures.
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }
}
