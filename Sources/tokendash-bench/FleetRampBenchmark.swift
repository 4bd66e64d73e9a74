import Foundation
import HTTPTransport
import ProviderVocabulary
import Spawning

/// 50,000 trips + 50,000 vehicles started by `tokendash watch` as the README tells an operator to
/// run it (one-hour tokens, the default ramp, 150 s), three times in the same run: with Fleet
/// Engine calls off (the baseline), on (as the user runs it), and on with the embedded server's
/// tokens slowed by a 200 ms latency fault, so the ramp has to adapt. The binary is the
/// `tokendash` built beside this one (`swift build -c release`); its peak RSS is the kernel's.
/// Not among the default sections (it takes about 8 minutes): `tokendash-bench ramp`.
/// `TOKENDASH_BENCH_FLEET` (SDKs a side, default 50,000) and `TOKENDASH_BENCH_DURATION`
/// (seconds, default 150) make a shorter run.
enum FleetRampBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let perKind =
        environment["TOKENDASH_BENCH_FLEET"].flatMap(Int.init).map { min(100_000, max(1, $0)) } ?? 50_000
    static let duration =
        environment["TOKENDASH_BENCH_DURATION"].flatMap(Double.init).map { min(3600, max(5, $0)) } ?? 150

    struct Outcome {
        var status: Int32 = -1
        var failures = 0
        var started = 0
        /// When stderr said all had started, in seconds after the start; nil if it never did.
        var allStartedAfter: Int?
        var peakKiB = 0
        var cpu: TimeInterval = 0
        /// The pace lines `watch` printed on stderr.
        var paceLines = 0
        /// The ramp's pace, scraped from `--metrics` every second while it paced.
        var paces: [Double] = []

        /// The pace's coefficient of variation over the steady phase: the samples after the first
        /// 10 s of the ramp and before its last 5 (the climb from the first calls and the tail's
        /// last few SDKs are not the pace holding). Nil with too few samples.
        var paceCV: Double? {
            guard paces.count > 20 else { return nil }
            let mean = steady.reduce(0, +) / Double(steady.count)
            guard mean > 0 else { return nil }
            let variance = steady.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(steady.count)
            return variance.squareRoot() / mean
        }
        /// The paces after the ramp's first 10 s and before its last 5.
        var steady: ArraySlice<Double> { paces.dropFirst(10).dropLast(5) }
        /// The steady phase's lowest and highest pace.
        var paceRange: String {
            guard let low = steady.min(), let high = steady.max() else { return "-" }
            return String(format: "%.0f-%.0f/s", low, high)
        }
    }

    @Sendable static func run() async throws {
        let total = 2 * perKind
        let off = try await watch(fleetEngine: false, latencyMilliseconds: nil)
        let on = try await watch(fleetEngine: true, latencyMilliseconds: nil)
        let slow = try await watch(fleetEngine: true, latencyMilliseconds: 200)
        func start(_ o: Outcome) -> String {
            o.allStartedAfter.map { "all \(total.formatted()) after \($0) s" }
                ?? "\(o.started.formatted()) of \(total.formatted())"
        }
        MintBenchmark.printTable([
            ("", "Fleet Engine calls on  |  on, 200 ms latency fault  |  off (baseline)"),
            (
                "command",
                "tokendash watch --trips \(perKind) --vehicles \(perKind) --duration \(Int(duration)) --lifetime 3600"
            ),
            ("SDKs started", "\(start(on))  |  \(start(slow))  |  \(start(off))"),
            ("fetch failures", "\(on.failures)  |  \(slow.failures)  |  \(off.failures)"),
            ("exit status", "\(on.status)  |  \(slow.status)  |  \(off.status)"),
            ("peak RSS", "\(on.peakKiB / 1024) MiB  |  \(slow.peakKiB / 1024) MiB  |  \(off.peakKiB / 1024) MiB"),
            (
                "per SDK",
                "\(on.peakKiB * 1024 / total) B  |  \(slow.peakKiB * 1024 / total) B  |  \(off.peakKiB * 1024 / total) B"
            ),
            ("CPU", String(format: "%.0f s  |  %.0f s  |  %.0f s", on.cpu, slow.cpu, off.cpu)),
            ("pace lines on stderr", "\(on.paceLines)  |  \(slow.paceLines)  |  \(off.paceLines)"),
            (
                "pace CV, steady phase",
                [on, slow, off].map { o in o.paceCV.map { String(format: "%.1f %%", $0 * 100) } ?? "-" }.joined(
                    separator: "  |  ")
            ),
            ("pace, steady phase", [on, slow, off].map(\.paceRange).joined(separator: "  |  ")),
        ])
        BenchReport.figure(
            "ramp_pace_cv", value: (on.paceCV ?? -1) * 100, unit: "%", baseline: (off.paceCV ?? -1) * 100)
        BenchReport.figure(
            "ramp_failures", value: Double(on.failures), unit: "failures", baseline: Double(off.failures))
        BenchReport.figure(
            "ramp_failures_slow_backend", value: Double(slow.failures), unit: "failures", baseline: Double(off.failures)
        )
        BenchReport.figure(
            "ramp_peak_rss", value: Double(on.peakKiB) / 1024, unit: "MiB", baseline: Double(off.peakKiB) / 1024)
        BenchReport.figure("ramp_started", value: Double(on.started), unit: "SDKs", baseline: Double(off.started))
        BenchReport.figure(
            "ramp_started_slow_backend", value: Double(slow.started), unit: "SDKs", baseline: Double(off.started))
        BenchReport.figure(
            "ramp_all_started_s", value: Double(on.allStartedAfter ?? -1), unit: "s",
            baseline: Double(off.allStartedAfter ?? -1))
        if on.failures + slow.failures > 0 {
            throw MintBenchmark.BenchmarkError(
                "fetches failed: \(on.failures) with Fleet Engine calls, \(slow.failures) with the slow backend")
        }
    }

    /// The `tokendash` binary built beside this one (`swift build -c release` makes both).
    static func tokendashBesideTheBench() throws -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .appendingPathComponent("tokendash").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw MintBenchmark.BenchmarkError(
                "no tokendash beside the bench at \(binary): build both with swift build -c release")
        }
        return binary
    }

    /// One `tokendash watch` run; with `latencyMilliseconds`, the latency fault is set on the
    /// embedded server as soon as it says where it listens, as an operator would with curl.
    static func watch(fleetEngine: Bool, latencyMilliseconds: Int?) async throws -> Outcome {
        let binary = try tokendashBesideTheBench()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-ramp-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        let err = folder.appendingPathComponent("err").path
        var arguments = [
            binary, "watch", "--trips", "\(perKind)", "--vehicles", "\(perKind)", "--duration", "\(Int(duration))",
            "--lifetime", "3600", "--events", "fetch_failed", "--summary", "--metrics", "127.0.0.1:0",
        ]
        if !fleetEngine { arguments.append("--no-fleet-engine") }
        let pid = try ChildProcess.spawn(arguments, stdin: .devNull, stdout: .file(out), stderr: .file(err))
        if let latencyMilliseconds {
            try await setLatency(latencyMilliseconds, stderrFile: err)
        }
        let scraping = Task { await scrapePaces(stderrFile: err) }
        let ended = await ChildProcess.ending(of: pid)
        scraping.cancel()
        var outcome = Outcome(status: ended.status, peakKiB: ended.peakKiB, cpu: ended.cpu)
        outcome.paces = await scraping.value
        let stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        for line in stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                continue
            }
            if object["event"] as? String == "fetch_failed" { outcome.failures += 1 }
            if object["event"] as? String == "summary" {
                outcome.started = ["consumer", "driver"].compactMap {
                    (object[$0] as? [String: Any])?["started"] as? Int
                }.reduce(0, +)
            }
        }
        for line in stderr.split(separator: "\n") {
            if line.contains("all of them, after "),
                let seconds = line.split(separator: " ").dropLast().last.flatMap({ Int($0) })
            {
                outcome.allStartedAfter = seconds
            }
            if line.contains("/s ("), line.contains("ramp: ") { outcome.paceLines += 1 }
        }
        print(
            stderr.split(separator: "\n").filter { $0.contains("ramp") }.suffix(4).map { "    " + $0 }.joined(
                separator: "\n"))
        return outcome
    }

    /// The ramp's pace each second while it paces (`tokendash_pace_calls_per_second{pacer="ramp"}`
    /// with `tokendash_pace_active` 1), from the port `watch` says its metrics are on; until cancelled.
    static func scrapePaces(stderrFile: String) async -> [Double] {
        var url: URL?
        while url == nil, !Task.isCancelled {
            let text = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
            if let range = text.range(of: "metrics on ") {
                url = URL(string: String(text[range.upperBound...].prefix { !$0.isWhitespace }))
            } else {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        guard let url, let transport = try? HTTPClientTransport() else { return [] }
        var paces: [Double] = []
        var started = false
        while !Task.isCancelled {
            if let page = try? await transport.send(TransportRequest(url: url, timeout: 5)),
                let text = String(data: page.body, encoding: .utf8)
            {
                func value(_ series: String) -> Double? {
                    text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
                        .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
                }
                let active = value(#"tokendash_pace_active{pacer="ramp"}"#) == 1
                if active, let pace = value(#"tokendash_pace_calls_per_second{pacer="ramp"}"#) {
                    paces.append(pace)
                    started = true
                } else if started {
                    break
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
        await transport.shutdown()
        return paces
    }

    /// Waits for `tokendash watch: embedded token server on http://127.0.0.1:PORT` and sets the
    /// latency fault on both kinds' routes there (`PUT /faults/both/latency?ms=N`).
    static func setLatency(_ milliseconds: Int, stderrFile: String) async throws {
        for _ in 0..<200 {
            let text = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
            if let range = text.range(of: "embedded token server on ") {
                let base = text[range.upperBound...].prefix { !$0.isWhitespace }
                guard let url = URL(string: "\(base)/faults/both/latency?ms=\(milliseconds)") else { break }
                let transport = try HTTPClientTransport()
                let status = try? await transport.send(TransportRequest(method: "PUT", url: url)).status
                await transport.shutdown()
                guard status == 200 else { break }
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw MintBenchmark.BenchmarkError(
            "could not set the latency fault: the embedded server never said where it listens")
    }
}
