import FleetAuth
import Foundation
import Tap
import TokenMetrics
import TokenServer

/// `tap`: what standing in front of a backend costs. One upstream (in this process, answering
/// unsigned tokens at once) is asked at a paced ~2,000 requests a second three ways in one run:
/// direct, through a bare SwiftNIO reverse proxy (the tap's forwarding with no reader), and through
/// the tap with its analysis and metrics. Each proxy runs in a child process, so its CPU is read
/// from /proc apart from the load's and the upstream's.
enum TapBenchmark {
    static let childFlag = "--tap-child"
    static var rate: Double { Double(ProcessInfo.processInfo.environment["TOKENDASH_BENCH_TAP_RATE"] ?? "") ?? 2000 }
    static var seconds: Double {
        Double(ProcessInfo.processInfo.environment["TOKENDASH_BENCH_TAP_SECONDS"] ?? "") ?? 10
    }
    static let connections = 8
    /// Where the tap's reader runs, to tell its cost from the forwarding's: `thread` (the tap's
    /// own, below the event loops' priority), `pool` (Swift's cooperative pool, as before issue 34's
    /// last change) or `off` (nothing read: the tap only captures and queues).
    static var readerPlace: String { ProcessInfo.processInfo.environment["TOKENDASH_BENCH_TAP_READER"] ?? "thread" }

    struct Run {
        var p50: Double
        var p99: Double
        var requests: Int
        var failed: Int
        /// The proxy's CPU per request, µs; nil for direct requests.
        var cpuPerRequest: Double?
    }

    static func run() async throws {
        let upstream = NIORouteServer(routes: UnsignedTokenRoutes(), host: "127.0.0.1", port: 0)
        let port = try await upstream.start()
        let base = "http://127.0.0.1:\(port)"
        defer { Task { await upstream.stop(gracePeriod: 0.1) } }
        let bare = try ServerProcess(childArguments: [childFlag, "bare", base])
        defer { bare.stop() }
        let analysed = try ServerProcess(childArguments: [childFlag, "analysed", base])
        defer { analysed.stop() }
        guard let directURL = URL(string: base) else { throw MintBenchmark.BenchmarkError("no URL \(base)") }
        BenchReport.say(
            String(
                format: "%.0f requests/s over %d keep-alive connections, %.0f s each, after 1 s of warm-up", rate,
                connections, seconds))
        let direct = try await measure(directURL, process: nil)
        let bareRun = try await measure(bare.baseURL, process: bare)
        let tapRun = try await measure(analysed.baseURL, process: analysed)
        func line(_ name: String, _ run: Run) {
            let cpu = run.cpuPerRequest.map { String(format: "%.1f µs CPU/request", $0) } ?? "-"
            let padded = name.padding(toLength: 34, withPad: " ", startingAt: 0)
            BenchReport.say(
                padded
                    + String(
                        format: "p50 %.3f ms  p99 %.3f ms  %@  (%.0f requests/s, %d failed)",
                        run.p50, run.p99, cpu as NSString, Double(run.requests) / seconds, run.failed))
        }
        line("direct to the upstream", direct)
        line("bare SwiftNIO reverse proxy", bareRun)
        line("tokendash tap (analysis, metrics)", tapRun)
        if readerPlace != "thread" { BenchReport.say("the tap's reader: \(readerPlace) (TOKENDASH_BENCH_TAP_READER)") }
        let added = tapRun.p99 - direct.p99
        let cpuRatio = (tapRun.cpuPerRequest ?? 0) / max(0.001, bareRun.cpuPerRequest ?? 0)
        BenchReport.say(
            String(
                format: "tap p99 added: %.3f ms (goal ≤ 1 ms); tap CPU/request %.2fx the bare proxy's (goal ≤ 2x)",
                added, cpuRatio))
        BenchReport.figure("tap_p99_added_ms", value: added, unit: "ms", baseline: 1)
        BenchReport.figure(
            "tap_cpu_per_request_us", value: tapRun.cpuPerRequest ?? 0, unit: "us", baseline: bareRun.cpuPerRequest)
    }

    static func measure(_ url: URL, process: ServerProcess?) async throws -> Run {
        let load = try KeepAliveLoad(baseURL: url, connections: connections, rate: rate)
        load.start()
        try await Task.sleep(for: .seconds(1))
        let before = try process?.cpuSeconds()
        let counted = load.counts
        load.measure()
        try await Task.sleep(for: .seconds(seconds))
        let after = try process?.cpuSeconds()
        let done = load.counts
        await load.stop()
        let sorted = load.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
        }
        let requests = done.succeeded - counted.succeeded
        var cpu: Double?
        if let before, let after, requests > 0 { cpu = (after - before) * 1e6 / Double(requests) }
        return Run(
            p50: percentile(0.5), p99: percentile(0.99), requests: requests, failed: done.failed - counted.failed,
            cpuPerRequest: cpu)
    }

    // MARK: - The child's side

    /// Runs in the child: a tap (`analysed`: reader, ledger, metrics as `tap --metrics` has them)
    /// or the bare proxy in front of `upstream` until stdin closes.
    static func serve(mode: String, upstream: String) async -> Never {
        do {
            var report: (@Sendable (TapExchange) -> Void)?
            if mode == "analysed" {
                let metrics = TapMetrics()
                let analysis = TapAnalysis(reader: ExchangeReader(), churnLimit: 4, sinks: [metrics.record])
                switch readerPlace {
                case "off": break
                case "pool": Task.detached { await analysis.run(on: globalConcurrentExecutor) }
                default: Task.detached { await analysis.run() }
                }
                report = analysis.submit
            }
            let server = try await TapServer.start(
                host: "127.0.0.1", port: 0, upstream: Upstream(upstream), report: report)
            FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("tokendash-bench: tap process: \(error)\n".utf8))
            exit(1)
        }
        await ServerProcess.exitAtEndOfInput()
    }
}
