import Dashboard
import DashboardRuntime
import Evidence
import FleetEngineAPI
import Foundation
import ProviderEvents
import ProviderVocabulary
import Recording
import RecordingFormat
import UICore

/// Evidence cost: a one-hour recording of two providers made into a cast and into a report,
/// beside the replay's own fold over the same recording (what a seek to its end costs); and a
/// live cast's cost per frame, beside the frame's render and diff.
enum EvidenceBenchmark {
    @Sendable static func run() async throws {
        let recording = try hourOfTwoProviders()
        let theme = Theme(name: "default", styles: [:])
        let initial = recording.header.initialState(theme: theme)
        let fold = median(5) { _ = ReplayTimeline(recording, initial: initial).fold(to: recording.end) }
        var castBytes = 0
        var pageBytes = 0
        var castCPU: [Double] = []
        let cast = median(5) {
            let before = MintBenchmark.cpuSeconds()
            castBytes = RecordingEvidence.cast(recording, theme: theme).utf8.count
            castCPU.append(MintBenchmark.cpuSeconds() - before)
        }
        // The process's CPU over the cast: how much of the machine the cast's wall time used.
        let castCores = (castCPU.sorted().dropFirst(castCPU.count / 2).first ?? 0) / max(cast, 1e-9)
        let report = median(3) {
            pageBytes =
                RecordingEvidence.report(recording, theme: theme, name: "hour.jsonl", version: "bench").utf8.count
        }
        let (frame, castFrame) = try liveFrames(theme: theme)
        MintBenchmark.printTable([
            (
                "baseline: replay's fold of a 1 h, 2-provider recording (\(recording.actions.count) lines)",
                seconds(fold)
            ),
            (
                "that recording to a cast",
                "\(seconds(cast))  (\(String(format: "%.1f", cast / fold))x baseline; \(castBytes / 1024) KiB; "
                    + String(format: "%.2f CPU-s, %.1f cores)", castCores * cast, castCores)
            ),
            (
                "that recording to a report",
                "\(seconds(report))  (\(String(format: "%.1f", report / fold))x baseline; \(pageBytes / 1024) KiB)"
            ),
            ("baseline: two-pane 160x48 frame, render + diff", RenderBenchmark.us(frame)),
            (
                "live cast per frame (ANSI of the changes, markers)",
                "\(RenderBenchmark.us(castFrame))  (\(String(format: "%.2f", castFrame / frame))x the frame)"
            ),
        ])
        BenchReport.figure("cast_hour_s", value: cast, unit: "s", baseline: fold)
        BenchReport.figure("report_hour_s", value: report, unit: "s", baseline: fold)
        BenchReport.figure("live_cast_frame_us", value: castFrame * 1e6, unit: "us", baseline: frame * 1e6)
    }

    /// An hour of the dashboard: a tick a second, each provider's SDK served from the cache each
    /// second, a token every 5 minutes, a Fleet Engine call every 10 s (a stretch of them refused),
    /// a fault on and off, and a mark every 15 minutes: the lines a real hour writes.
    static func hourOfTwoProviders() throws -> Recording {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let state = DashboardState(
            consumerID: "trip-0001", driverID: "vehicle-0001", now: start, backend: "embedded on 127.0.0.1:40000",
            faultsAvailable: true)
        let header = RecordingHeader(
            state: state, members: [.consumer: ["trip-0001"], .driver: ["vehicle-0001"]], command: ["tokendash"],
            source: "dashboard", tokendash: "bench", ticks: true, start: start)
        let base = header.base
        let encoder = JSONEncoder()
        var data = try encoder.encode(header) + Data("\n".utf8)
        func add(_ action: Action, _ second: Double) throws {
            guard let line = RecordedLine(action, at: start.addingTimeInterval(second), base: base) else { return }
            data += try encoder.encode(line) + Data("\n".utf8)
        }
        try add(.resized(width: 160, height: 48), 0)
        for second in 0..<3600 {
            let t = Double(second)
            let now = start.addingTimeInterval(t)
            try add(.tick(now), t)
            for kind in [ProviderKind.consumer, .driver] {
                let id = kind == .consumer ? "trip-0001" : "vehicle-0001"
                func event(_ k: ProviderEvent.Kind) -> Action {
                    .event(ProviderEvent(time: now, provider: kind, id: id, kind: k))
                }
                if second % 300 == 0 {
                    try add(event(.fetchStarted(reason: second == 0 ? .noToken : .refreshAhead)), t)
                    try add(event(.fetched(RenderBenchmark.token(kind, id: id, now: now), latency: 0.012)), t + 0.012)
                } else {
                    try add(event(.cacheHit(count: 1, expiresAt: now.addingTimeInterval(300))), t + 0.1)
                }
                if second % 10 == 5 {
                    let refused = (1200..<1500).contains(second) && kind == .driver
                    try add(
                        event(
                            .fleetEngineCall(
                                FleetEngineAnswer(
                                    method: kind == .consumer ? .getTrip : .updateVehicle,
                                    resource: "providers/p/\(id)", httpStatus: refused ? 403 : 200,
                                    status: refused ? "PERMISSION_DENIED" : "OK", message: refused ? "no access" : "",
                                    latency: 0.02,
                                    fingerprint: "1a2b3c4d", rules: .ok))), t + 0.2)
                }
            }
            if second == 1190 { try add(.faultsChanged([.driver: .wrongID]), t + 0.3) }
            if second == 1500 { try add(.faultsChanged([:]), t + 0.3) }
            if second % 900 == 450 {
                try add(.marked(Mark(number: second / 900 + 1, at: now, note: "mark at \(second) s")), t + 0.4)
            }
        }
        return try Recording.parse(data, name: "hour.jsonl")
    }

    /// The frame's render and diff, and a live cast's work on the same frames, per frame.
    static func liveFrames(theme: Theme) throws -> (frame: Double, cast: Double) {
        let now = Date()
        // Two frames a second apart, in turn, so each differs from the one before as live ones do.
        let first = RenderBenchmark.state(now: now, trips: 1, vehicles: 1)
        var second = first
        _ = Reducer.reduce(&second, .tick(now.addingTimeInterval(1)))
        let states = [first, second]
        let canvases = states.map { Renderer.render($0, width: 160, height: 48) }
        var previous = canvases[1]
        var index = 0
        let frame = RenderBenchmark.time { () -> Canvas in
            index += 1
            let canvas = Renderer.render(states[index % 2], width: 160, height: 48)
            canvas.forEachChangedRun(since: previous) { _, _, _ in }
            previous = canvas
            return canvas
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(getpid()).cast").path
        defer { unlink(path) }
        let cast = try LiveCast(
            path: path, start: now, theme: theme, idleTimeLimit: nil, title: "bench", environment: [:])
        let castTime = RenderBenchmark.time { () -> Canvas in
            index += 1
            cast.frame(canvases[index % 2], of: states[index % 2], at: now.addingTimeInterval(Double(index)))
            return canvases[index % 2]
        }
        _ = cast.close()
        return (frame, castTime)
    }

    static func median(_ runs: Int, _ body: () -> Void) -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            body()
            let d = ContinuousClock.now - start
            samples.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        return samples.sorted()[samples.count / 2]
    }

    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
}
