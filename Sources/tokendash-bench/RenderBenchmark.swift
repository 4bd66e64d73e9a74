import Dashboard
import Fleet
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import TokenReading
import UICore

/// Frame cost: `render(state, 160x48)` for the two-pane screen and for a 20,000-provider fleet
/// (its once-a-second statistics included), against the floor of any renderer: writing 48 lines
/// of 160 characters into a Canvas.
enum RenderBenchmark {
    /// Frames timed per figure; `TOKENDASH_BENCH_FRAMES` raises it for a profiler run.
    static let frames = ProcessInfo.processInfo.environment["TOKENDASH_BENCH_FRAMES"].flatMap(Int.init) ?? 300

    @Sendable static func run() async throws {
        // Figures against the floor of any renderer on this machine, in this run.
        let now = Date()
        let single = state(now: now, trips: 1, vehicles: 1)
        let floor = time { () -> Canvas in
            var canvas = Canvas(width: 160, height: 48)
            let line = String(repeating: "x", count: 160)
            for y in 0..<48 { canvas.put(line, x: 0, y: y) }
            return canvas
        }
        // A frame as the loop makes it: render, then the runs the terminal would draw against
        // the frame before (a second later, so the clocks and countdowns differ).
        var later = single
        _ = Reducer.reduce(&later, .tick(now.addingTimeInterval(1)))
        let states = [single, later]
        var previous = Renderer.render(later, width: 160, height: 48)
        var frameIndex = 0
        var runs = 0
        // The loop keeps a memo from frame to frame (the footer's rows, the fetch log's).
        let memo = RenderMemo()
        let singleTime = time { () -> Canvas in
            frameIndex += 1
            let canvas = Renderer.render(states[frameIndex % 2], width: 160, height: 48, memo: memo)
            canvas.forEachChangedRun(since: previous) { _, _, _ in runs += 1 }
            previous = canvas
            return canvas
        }
        let unchanged = Renderer.render(single, width: 160, height: 48)
        let unchangedCopy = unchanged
        let unchangedTime = time { () -> Canvas in
            unchanged.forEachChangedRun(since: unchangedCopy) { _, _, _ in runs += 1 }
            return unchanged
        }
        let small = fleet(perKind: 10_000, now: now)
        let large = fleet(perKind: 50_000, now: now)
        MintBenchmark.printTable([
            ("baseline: fill a 160x48 Canvas", us(floor)),
            (
                "two-pane 160x48 frame: render + diff",
                "\(us(singleTime))  (\(String(format: "%.1f", singleTime / floor))x baseline; bound 100 µs)"
            ),
            ("unchanged frame: diff, nothing to draw", us(unchangedTime)),
            (
                "fleet frame, 20,000 providers (statistics, render)",
                "\(us(small.frame))  (\(String(format: "%.1f", small.frame / floor))x baseline)"
            ),
            ("fleet tables, 20,000 members (once a second)", us(small.tables)),
            ("a key in that fleet: reduce, render, diff", us(small.key)),
            (
                "fleet frame, 100,000 providers (statistics, render)",
                "\(us(large.frame))  (\(String(format: "%.1f", large.frame / floor))x baseline, \(String(format: "%.1f", large.frame / small.frame))x 20,000's; bound 1 ms)"
            ),
            ("fleet tables, 100,000 members (once a second)", us(large.tables)),
            (
                "a key in that fleet: reduce, render, diff",
                "\(us(large.key))  (\(String(format: "%.1f", large.key / floor))x baseline; within one frame: \(large.key <= large.frame ? "yes" : "NO"))"
            ),
        ])
        BenchReport.figure("render_frame_us", value: singleTime * 1e6, unit: "us", baseline: floor * 1e6)
        BenchReport.figure("unchanged_frame_us", value: unchangedTime * 1e6, unit: "us", baseline: floor * 1e6)
        BenchReport.figure("fleet_frame_us", value: small.frame * 1e6, unit: "us", baseline: floor * 1e6)
        BenchReport.figure("fleet_tables_us", value: small.tables * 1e6, unit: "us", baseline: floor * 1e6)
        BenchReport.figure("fleet_frame_100k_us", value: large.frame * 1e6, unit: "us", baseline: floor * 1e6)
        BenchReport.figure("fleet_tables_100k_us", value: large.tables * 1e6, unit: "us", baseline: floor * 1e6)
        BenchReport.figure("fleet_key_100k_us", value: large.key * 1e6, unit: "us", baseline: floor * 1e6)
        if runs == -1 { print("") }
    }

    /// A fleet of `perKind` trips and as many vehicles, each fetched once: the frame as the
    /// summaries arrive (the statistics made and the frame rendered), the once-a-second tables,
    /// and a key (the table's selection moving) from reducer to the runs the terminal draws.
    static func fleet(perKind: Int, now: Date) -> (frame: Double, tables: Double, key: Double) {
        var fleet = state(now: now, trips: perKind, vehicles: perKind)
        var stats = [
            ProviderKind.consumer: FleetStatistics(capacity: perKind), .driver: FleetStatistics(capacity: perKind),
        ]
        for kind in ProviderKind.Solution.onDemand.kinds {
            for i in 0..<perKind {
                let id = IDSequence.fleetID(prefix: kind == .consumer ? "trip" : "vehicle", index: i, count: perKind)
                stats[kind]?.record(
                    ProviderEvent(time: now, provider: kind, id: id, kind: .fetchStarted(reason: .noToken)))
                stats[kind]?.record(
                    ProviderEvent(
                        time: now, provider: kind, id: id, kind: .fetched(token(kind, id: id, now: now), latency: 0.004)
                    ))
            }
        }
        // The member tables, made once a second off the UI thread: sorted and cut to 500 rows a kind.
        var tables: [ProviderKind: FleetTable] = [:]
        var previous = Canvas(width: 160, height: 48)
        let tableTime = time { () -> Canvas in
            tables = stats.reduce(into: [ProviderKind: FleetTable]()) { $0[$1.key] = $1.value.table(now: now) }
            return previous
        }
        _ = Reducer.reduce(&fleet, .fleetTables(tables))
        let frameTime = time { () -> Canvas in
            let summaries = stats.reduce(into: [ProviderKind: FleetSummary]()) {
                $0[$1.key] = $1.value.summary(now: now, providers: perKind)
            }
            _ = Reducer.reduce(&fleet, .fleet(summaries))
            return Renderer.render(fleet, width: 160, height: 48)
        }
        previous = Renderer.render(fleet, width: 160, height: 48)
        var runs = 0
        var down = true
        let keyTime = time { () -> Canvas in
            // Down and up in turn, so every frame differs from the one before.
            _ = Reducer.reduce(&fleet, .key(down ? .down : .up))
            down.toggle()
            let canvas = Renderer.render(fleet, width: 160, height: 48)
            canvas.forEachChangedRun(since: previous) { _, _, _ in runs += 1 }
            previous = canvas
            return canvas
        }
        if runs == -1 { print("") }
        return (frameTime, tableTime, keyTime)
    }

    static func us(_ seconds: Double) -> String { String(format: "%.0f µs", seconds * 1e6) }

    /// Median seconds per call over `frames` calls.
    static func time(_ body: () -> Canvas) -> Double {
        var samples: [Double] = []
        var sink = 0
        for _ in 0..<frames {
            let start = ContinuousClock.now
            sink &+= body().width
            let d = ContinuousClock.now - start
            samples.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        if sink == 42 { print("") }
        return samples.sorted()[samples.count / 2]
    }

    static func state(now: Date, trips: Int, vehicles: Int) -> DashboardState {
        var s = DashboardState(
            consumerID: trips > 1 ? "trip-00001" : "trip-0001",
            driverID: vehicles > 1 ? "vehicle-00001" : "vehicle-0001",
            now: now, backend: "embedded on 127.0.0.1:40000", faultsAvailable: true, trips: trips, vehicles: vehicles)
        for kind in s.kinds {
            let id = s[kind].id
            _ = Reducer.reduce(
                &s, .event(ProviderEvent(time: now, provider: kind, id: id, kind: .fetchStarted(reason: .noToken))))
            _ = Reducer.reduce(
                &s,
                .event(
                    ProviderEvent(
                        time: now, provider: kind, id: id, kind: .fetched(token(kind, id: id, now: now), latency: 0.01))
                ))
            for i in 0..<400 {
                _ = Reducer.reduce(
                    &s,
                    .event(
                        ProviderEvent(
                            time: now, provider: kind, id: id,
                            kind: i % 7 == 0 ? .fetchStarted(reason: .refreshAhead) : .cacheHit(expiresAt: now))))
            }
        }
        return s
    }

    static func token(_ kind: ProviderKind, id: String, now: Date) -> FetchedToken {
        let iat = Int(now.timeIntervalSince1970)
        let jwt = ProviderBenchmark.CountingBackend.jwt(id: id, iat: iat, exp: iat + 300)
        guard let decoded = try? JWTInspector.decode(jwt) else {
            preconditionFailure("the bench's own token must decode")
        }
        return FetchedToken(token: jwt, id: id, expiresAt: now.addingTimeInterval(300), receivedAt: now, jwt: decoded)
    }
}
