import Foundation
import Pacing
import ProviderVocabulary
import RouteServer
import TapForwarding
import TapReading
import ThreadExecutor
import TokenMetrics
import TokenServer

/// `tap`: what standing in front of a backend costs. One upstream (in this process, answering
/// unsigned tokens at once) is asked at a paced ~2,000 requests a second four ways in one run:
/// direct, through nginx (`proxy_pass` with upstream keepalive, what an operator would otherwise
/// put there; skipped when nginx is not installed), through a bare SwiftNIO reverse proxy (the
/// tap's forwarding with no reader), and through the tap with its analysis and metrics. Each
/// proxy runs in a child process, so its CPU is read from /proc apart from the load's and the upstream's.
///
/// The three ways take turns in short slices, each way's latencies pooled over its slices: on two
/// cores shared with the client and the upstream, the bare proxy's own p99 moved by 2 ms between
/// runs of ten seconds one after the other, so a drift of the machine's would pass for a way's cost.
/// Interleaved, every way meets the same drift.
enum TapBenchmark {
    static let childFlag = "--tap-child"
    static var rate: Double { Double(ProcessInfo.processInfo.environment["TOKENDASH_BENCH_TAP_RATE"] ?? "") ?? 2000 }
    /// Seconds measured for each way, over all its slices.
    static var seconds: Double {
        Double(ProcessInfo.processInfo.environment["TOKENDASH_BENCH_TAP_SECONDS"] ?? "") ?? 20
    }
    static let slice: Double = 2
    /// After a way resumes, before its latencies count: the first answers after a pause meet cold caches.
    static let settle: Duration = .milliseconds(200)
    static let connections = 8
    /// Where the tap's reader runs, to tell its cost from the forwarding's: `thread` (the tap's
    /// own, below the event loops' priority), `keep` (that thread, never giving its core away
    /// between readings), `idle` (that thread in `SCHED_IDLE`), `pool` (Swift's cooperative pool),
    /// `off` (nothing read: the tap only captures and queues) or `drop` (each exchange captured
    /// and dropped on its event loop, nothing queued).
    static var readerPlace: String { ProcessInfo.processInfo.environment["TOKENDASH_BENCH_TAP_READER"] ?? "thread" }
    /// How long the tap's reader rests when its queue is empty, 1-10,000 ms (`TOKENDASH_BENCH_TAP_REST`;
    /// the tap's own by default, and for anything outside that range).
    static var readerRest: Duration {
        setting("TOKENDASH_BENCH_TAP_REST", in: 1...10_000).map { .milliseconds($0) } ?? TapAnalysis.rest
    }
    /// How long the tap's reader reads before it gives way, 0-10,000 µs (`TOKENDASH_BENCH_TAP_TURN`;
    /// the tap's own by default, and for anything outside that range).
    static var readerTurn: Duration {
        setting("TOKENDASH_BENCH_TAP_TURN", in: 0...10_000).map { .microseconds($0) } ?? TapAnalysis.turn
    }
    /// The number the environment gives `name`, when it is one and within `range`.
    static func setting(_ name: String, in range: ClosedRange<Double>) -> Double? {
        Double(ProcessInfo.processInfo.environment[name] ?? "").flatMap { range.contains($0) ? $0 : nil }
    }
    /// `TOKENDASH_BENCH_TAP_PIN=1`: the proxies on the last CPU, the client and the upstream on
    /// the others (`CPUPinning`), so the p99 is the proxy's more than the shared cores' queueing.
    static var pinned: Bool { ProcessInfo.processInfo.environment["TOKENDASH_BENCH_TAP_PIN"] == "1" }

    struct Run {
        var p50: Double
        var p99: Double
        var requests: Int
        var failed: Int
        /// The proxy's CPU per request, µs; nil for direct requests.
        var cpuPerRequest: Double?
    }

    /// One way of asking, its load held paused while another way's slice runs.
    final class Way {
        let load: KeepAliveLoad
        /// The proxy's CPU seconds so far; nil for direct requests.
        let cpuSeconds: (() throws -> Double)?
        var cpu: Double = 0
        var requests = 0
        var failed = 0

        init(_ url: URL, cpuSeconds: (() throws -> Double)?) throws {
            load = try KeepAliveLoad(baseURL: url, connections: TapBenchmark.connections, rate: TapBenchmark.rate)
            self.cpuSeconds = cpuSeconds
        }

        /// One slice: resume, settle, measure for `seconds`, then pause again.
        func slice(_ seconds: Double) async throws {
            load.resume()
            try await Task.sleep(for: TapBenchmark.settle)
            let before = try cpuSeconds?()
            let counted = load.counts
            load.measure()
            try await Task.sleep(for: .seconds(seconds))
            load.unmeasure()
            let after = try cpuSeconds?()
            let done = load.counts
            load.pause()
            requests += done.succeeded - counted.succeeded
            failed += done.failed - counted.failed
            if let before, let after { cpu += after - before }
        }

        /// The pooled figures, once the load has stopped.
        func run() async -> Run {
            await load.stop()
            let sorted = load.latencies.sorted().map(Double.init)
            func percentile(_ p: Double) -> Double { (Percentile.nearestRank(p, of: sorted) ?? 0) / 1e6 }
            let perRequest = cpuSeconds != nil && requests > 0 ? cpu * 1e6 / Double(requests) : nil
            return Run(
                p50: percentile(0.5), p99: percentile(0.99), requests: requests, failed: failed,
                cpuPerRequest: perRequest)
        }
    }

    static func run() async throws {
        let upstream = NIORouteServer(routes: UnsignedTokenRoutes(), host: "127.0.0.1", port: 0)
        let port = try await upstream.start()
        let base = "http://127.0.0.1:\(port)"
        defer { Task { await upstream.stop(gracePeriod: 0.1) } }
        let bare = try ServerProcess(childArguments: [childFlag, "bare", base])
        defer { bare.stop() }
        let counts = NSTemporaryDirectory() + "tokendash-bench-tap-counts-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: counts) }
        let analysed = try ServerProcess(
            childArguments: [childFlag, "analysed", base], environment: [countsVariable: counts])
        var analysedStopped = false
        defer { if !analysedStopped { analysed.stop() } }
        let nginx = try NginxProcess(upstream: "127.0.0.1:\(port)")
        defer { nginx?.stop() }
        if nginx == nil { BenchReport.say("nginx is not installed: its row is skipped (apt-get install nginx)") }
        guard let directURL = URL(string: base) else { throw MintBenchmark.BenchmarkError("no URL \(base)") }
        if pinned, CPUPinning.possible {
            let last = ProcessInfo.processInfo.activeProcessorCount - 1
            try CPUPinning.pin(getpid(), to: 0...(last - 1))
            try CPUPinning.pin(bare.pid, to: last...last)
            try CPUPinning.pin(analysed.pid, to: last...last)
            if let nginx { try CPUPinning.pin(nginx.pid, to: last...last) }
            let rest = last == 1 ? "CPU 0" : "CPUs 0-\(last - 1)"
            BenchReport.say("pinned: the proxies on CPU \(last), the client and the upstream on \(rest)")
        }
        let slices = max(1, Int((seconds / slice).rounded()))
        BenchReport.say(
            String(
                format:
                    "%.0f requests/s over %d keep-alive connections; the ways in turn, %d slices of %.0f s each after 1 s of warm-up",
                rate, connections, slices, slice))
        var ways = try [
            Way(directURL, cpuSeconds: nil), Way(bare.baseURL, cpuSeconds: bare.cpuSeconds),
            Way(analysed.baseURL, cpuSeconds: analysed.cpuSeconds),
        ]
        if let nginx { ways.append(try Way(nginx.baseURL, cpuSeconds: nginx.cpuSeconds)) }
        for way in ways {
            way.load.pause()
            way.load.start()
        }
        // Warm-up: each way's connections opened and its code paths run once.
        for way in ways {
            way.load.resume()
            try await Task.sleep(for: .seconds(1.0 / Double(ways.count)))
            way.load.pause()
        }
        for round in 0..<slices {
            // Each round in a turned order, so no way always follows the same other.
            for offset in 0..<ways.count { try await ways[(round + offset) % ways.count].slice(slice) }
        }
        var runs: [Run] = []
        for way in ways { runs.append(await way.run()) }
        try idleClientsRow(tapURL: analysed.baseURL, tapPID: analysed.pid, nginx: nginx, upstreamPort: Int(port))
        analysed.stop()
        analysedStopped = true
        let read = try readCounts(counts)
        report(runs, measured: Double(slices) * slice, read: read)
    }

    /// Each way's line and the tap's figures beside their baselines from the same run: the bare
    /// proxy's (what the reading adds) and nginx's (what an operator compares the tap with).
    private static func report(_ runs: [Run], measured: Double, read: (read: Int, dropped: Int, readerCPU: Double?)) {
        let (direct, bareRun, tapRun) = (runs[0], runs[1], runs[2])
        func line(_ name: String, _ run: Run) {
            let cpu = run.cpuPerRequest.map { String(format: "%.1f µs CPU/request", $0) } ?? "-"
            let padded = name.padding(toLength: 34, withPad: " ", startingAt: 0)
            BenchReport.say(
                padded
                    + String(
                        format: "p50 %.3f ms  p99 %.3f ms  %@  (%.0f requests/s, %d failed)",
                        run.p50, run.p99, cpu as NSString, Double(run.requests) / measured, run.failed))
        }
        line("direct to the upstream", direct)
        let nginxRun = runs.count > 3 ? runs[3] : nil
        if let nginxRun { line("nginx proxy_pass (keepalive)", nginxRun) }
        line("bare SwiftNIO reverse proxy", bareRun)
        line("tokendash tap (analysis, metrics)", tapRun)
        if readerPlace != "thread" { BenchReport.say("the tap's reader: \(readerPlace) (TOKENDASH_BENCH_TAP_READER)") }
        let added = tapRun.p99 - direct.p99
        let bareAdded = bareRun.p99 - direct.p99
        let cpuRatio = (tapRun.cpuPerRequest ?? 0) / max(0.001, bareRun.cpuPerRequest ?? 0)
        BenchReport.say(
            String(
                format:
                    "tap p99 added: %.3f ms (goal ≤ 1 ms; the bare proxy's: %.3f ms); tap CPU/request %.2fx the bare proxy's (goal ≤ 2x)",
                added, bareAdded, cpuRatio))
        // The reader's share apart: its thread's CPU over the whole run, per exchange it read,
        // beside the bare proxy's whole CPU per request.
        if let readerCPU = read.readerCPU, read.read > 0 {
            let perExchange = readerCPU * 1e6 / Double(read.read)
            BenchReport.say(
                String(
                    format: "the tap's reader: %.1f µs CPU per exchange read (%d read, %d dropped, over the whole run)",
                    perExchange, read.read, read.dropped))
            BenchReport.figure(
                "tap_reader_cpu_in_tap_us", value: perExchange, unit: "us", baseline: bareRun.cpuPerRequest)
        }
        // The p99 added over direct requests, beside the bare proxy's own in the same run (the goal is 1 ms).
        BenchReport.figure("tap_p99_added_ms", value: added, unit: "ms", baseline: bareAdded)
        BenchReport.figure(
            "tap_cpu_per_request_us", value: tapRun.cpuPerRequest ?? 0, unit: "us", baseline: bareRun.cpuPerRequest)
        // What an operator compares the tap with: nginx in the same place, in the same run.
        if let nginxRun {
            let nginxAdded = nginxRun.p99 - direct.p99
            BenchReport.say(
                String(
                    format: "against nginx: tap CPU/request %.2fx nginx's; p99 added %.3f ms against nginx's %.3f ms",
                    (tapRun.cpuPerRequest ?? 0) / max(0.001, nginxRun.cpuPerRequest ?? 0), added, nginxAdded))
            BenchReport.figure(
                "tap_cpu_per_request_vs_nginx_us", value: tapRun.cpuPerRequest ?? 0, unit: "us",
                baseline: nginxRun.cpuPerRequest)
            BenchReport.figure("tap_p99_added_vs_nginx_ms", value: added, unit: "ms", baseline: nginxAdded)
        }
    }

    /// The upstream connections the tap and nginx hold once `IdleClientsHold.clients` keep-alive
    /// clients have each asked once and gone idle, in the same run: said, and the tap's a figure
    /// with nginx's (`keepalive 16`) as its baseline.
    static func idleClientsRow(tapURL: URL, tapPID: pid_t, nginx: NginxProcess?, upstreamPort: Int) throws {
        let tapClients = try IdleClientsHold.openIdle(tapURL)
        let tapHeld = IdleClientsHold.upstreamConnections(of: tapPID, upstreamPort: upstreamPort)
        IdleClientsHold.close(tapClients.sockets)
        var nginxHeld: Int?
        var nginxAnswered = 0
        if let nginx {
            let clients = try IdleClientsHold.openIdle(nginx.baseURL)
            nginxHeld = IdleClientsHold.upstreamConnections(of: nginx.pid, upstreamPort: upstreamPort)
            nginxAnswered = clients.answered
            IdleClientsHold.close(clients.sockets)
        }
        BenchReport.say(
            "upstream connections held after \(IdleClientsHold.clients) idle keep-alive clients: tap \(tapHeld) "
                + "(\(tapClients.answered) answered; at most 16 idle per event loop, \(ProcessInfo.processInfo.activeProcessorCount) loops)"
                + (nginxHeld.map { ", nginx keepalive 16: \($0) (\(nginxAnswered) answered)" } ?? ""))
        BenchReport.figure(
            "tap_upstream_connections_idle_clients", value: Double(tapHeld), unit: "connections",
            baseline: nginxHeld.map(Double.init))
    }

    // MARK: - The child's side

    /// Runs in the child: a tap (`analysed`: reader, ledger, metrics as `tap --metrics` has them)
    /// or the bare proxy in front of `upstream` until stdin closes.
    static func serve(mode: String, upstream: String) async -> Never {
        var atEnd: @Sendable () -> Void = {}
        do {
            var report: (@Sendable (TapExchange) -> Void)?
            if mode == "analysed" {
                let metrics = TapMetrics()
                let keep: @Sendable () -> Void = {}
                let analysis = TapAnalysis(
                    reader: ExchangeReader(), churnLimit: 4, sinks: [metrics.record],
                    giveWay: readerPlace == "keep" ? keep : TapAnalysis.yieldCore, rest: readerRest,
                    turn: readerTurn)
                switch readerPlace {
                case "off", "drop": break
                case "pool": Task.detached { await analysis.run(on: globalConcurrentExecutor) }
                case "idle":
                    let idle = ThreadExecutor(name: "tap reader", priority: .idle)
                    Task.detached { await analysis.run(on: idle) }
                default: Task.detached { await analysis.run() }
                }
                // `drop`: each exchange captured and let go on its event loop, never queued: what
                // the capture costs apart from handing exchanges to another thread.
                report = readerPlace == "drop" ? { _ in } : analysis.submit
                if let path = ProcessInfo.processInfo.environment[countsVariable] {
                    atEnd = {
                        let reader = ServerProcess.cpuSeconds(ofThreadNamed: "tap reader", in: getpid()) ?? -1
                        let counts = "\(analysis.exchangeCount) \(analysis.droppedCount) \(reader)\n"
                        try? counts.write(toFile: path, atomically: true, encoding: .utf8)
                    }
                }
            }
            let server = try await TapServer.start(
                host: "127.0.0.1", port: 0, upstream: Upstream(upstream), report: report)
            FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("tokendash-bench: tap process: \(error)\n".utf8))
            exit(1)
        }
        await ServerProcess.exitAtEndOfInput(atEnd: atEnd)
    }

    /// Where the analysed child writes, as it ends, the exchanges it read, those it dropped
    /// unread, and its reader thread's CPU seconds (-1 when it had none).
    static let countsVariable = "TOKENDASH_BENCH_TAP_COUNTS"

    /// What the analysed child wrote at `path` as it ended.
    static func readCounts(_ path: String) throws -> (read: Int, dropped: Int, readerCPU: Double?) {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 3, let read = Int(words[0]), let dropped = Int(words[1]), let reader = Double(words[2])
        else { throw MintBenchmark.BenchmarkError("the tap wrote no counts at \(path)") }
        return (read, dropped, reader >= 0 ? reader : nil)
    }
}
