import Foundation
import RouteServer
import Spawning

/// `tap-saturation`: nginx and the tap each driven as hard as `wrk` can on this machine (one
/// thread, 8 keep-alive connections, every request a new ID), one after the other in two rounds,
/// in front of the same upstream: each one's requests a second, CPU per request and p99, and how
/// many exchanges the tap forwarded but dropped unread (its queue full). The paced `tap` section
/// says what the tap costs at a given load; this one says how much load it takes, and whether its
/// reading keeps up there.
enum TapSaturationBenchmark {
    static let seconds = 8
    static let connections = 8
    static let rounds = 2

    struct Run {
        var requests = 0
        var seconds = 0.0
        var cpu = 0.0
        var p50: [Double] = []
        var p99: [Double] = []
        var errors = 0

        var perSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
        var cpuPerRequest: Double { requests > 0 ? cpu * 1e6 / Double(requests) : 0 }
    }

    /// What `wrk --latency` printed, read: its requests, their time, the 50th and 99th percentile
    /// latencies in ms, and its socket errors and non-2xx answers.
    struct WrkReport: Equatable {
        var requests: Int
        var seconds: Double
        var p50: Double
        var p99: Double
        var errors: Int

        init?(_ text: String) {
            var requests: Int?
            var seconds: Double?
            var p50: Double?
            var p99: Double?
            var errors = 0
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                // "  160000 requests in 8.00s, 51.12MB read"
                if words.count >= 4, words[1] == "requests", words[2] == "in" {
                    requests = Int(words[0])
                    seconds = Self.milliseconds(String(words[3].dropLast(words[3].hasSuffix(",") ? 1 : 0))).map {
                        $0 / 1000
                    }
                }
                // "     99%    1.00ms"
                if words.count == 2, words[0] == "50%" { p50 = Self.milliseconds(String(words[1])) }
                if words.count == 2, words[0] == "99%" { p99 = Self.milliseconds(String(words[1])) }
                // "  Socket errors: connect 0, read 0, write 0, timeout 0" and "  Non-2xx or 3xx responses: 12"
                if line.contains("Socket errors:") || line.contains("Non-2xx") {
                    errors += words.compactMap { Int($0.filter(\.isNumber)) }.reduce(0, +)
                }
            }
            guard let requests, let seconds, let p50, let p99 else { return nil }
            (self.requests, self.seconds, self.p50, self.p99, self.errors) = (requests, seconds, p50, p99, errors)
        }

        /// wrk's durations: `812.00us`, `1.20ms`, `8.00s`, `1.00m`.
        static func milliseconds(_ text: String) -> Double? {
            for (suffix, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0), ("m", 60_000.0)]
            where text.hasSuffix(suffix) {
                return Double(text.dropLast(suffix.count)).map { $0 * scale }
            }
            return nil
        }
    }

    /// A new ID for every request, as the paced section's load asks: the tap's ledger grows as it
    /// would in front of a fleet.
    static let script = """
        counter = 0
        request = function()
          counter = counter + 1
          return wrk.format("GET", "/token/driver/v-" .. counter)
        end
        """

    static func run() async throws {
        guard let wrk = ChildProcess.onPath("wrk") else {
            BenchReport.say("wrk is not installed: the section is skipped (apt-get install wrk)")
            return
        }
        let upstream = NIORouteServer(routes: UnsignedTokenRoutes(), host: "127.0.0.1", port: 0)
        let port = try await upstream.start()
        let base = "http://127.0.0.1:\(port)"
        defer { Task { await upstream.stop(gracePeriod: 0.1) } }
        let folder = NSTemporaryDirectory() + "tokendash-bench-saturation-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scriptFile = folder + "/ids.lua"
        try script.write(toFile: scriptFile, atomically: true, encoding: .utf8)
        let counts = folder + "/tap-counts"
        let tap = try ServerProcess(
            childArguments: [TapBenchmark.childFlag, "analysed", base],
            environment: [TapBenchmark.countsVariable: counts])
        var tapStopped = false
        defer { if !tapStopped { tap.stop() } }
        guard let nginx = try NginxProcess(upstream: "127.0.0.1:\(port)") else {
            BenchReport.say("nginx is not installed: the section is skipped (apt-get install nginx)")
            return
        }
        defer { nginx.stop() }
        BenchReport.say(
            "wrk -t1 -c\(connections) -d\(seconds)s, every request a new ID; nginx and the tap in turn, \(rounds) rounds"
        )
        var nginxRun = Run()
        var tapRun = Run()
        for _ in 0..<rounds {
            try await measure(
                wrk, nginx.baseURL, script: scriptFile, folder: folder, cpu: nginx.cpuSeconds, into: &nginxRun)
            try await measure(wrk, tap.baseURL, script: scriptFile, folder: folder, cpu: tap.cpuSeconds, into: &tapRun)
        }
        tap.stop()
        tapStopped = true
        let unread = try TapBenchmark.readCounts(counts)
        func line(_ name: String, _ run: Run) {
            BenchReport.say(
                name.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "%.0f requests/s  %.1f µs CPU/request  p50 %.3f ms  p99 %.3f ms  (%d errors)",
                        run.perSecond, run.cpuPerRequest, median(run.p50), median(run.p99), run.errors))
        }
        line("nginx proxy_pass (keepalive)", nginxRun)
        line("tokendash tap (analysis)", tapRun)
        BenchReport.say(
            "the tap forwarded \(tapRun.requests) exchanges: read \(unread.read), dropped \(unread.dropped) unread (its queue full), the rest still queued as it ended"
        )
        BenchReport.figure(
            "tap_saturation_requests_per_second", value: tapRun.perSecond, unit: "1/s", baseline: nginxRun.perSecond)
        BenchReport.figure(
            "tap_saturation_cpu_per_request_us", value: tapRun.cpuPerRequest, unit: "us",
            baseline: nginxRun.cpuPerRequest)
        BenchReport.figure(
            "tap_saturation_p99_ms", value: median(tapRun.p99), unit: "ms", baseline: median(nginxRun.p99))
        BenchReport.figure("tap_saturation_unread", value: Double(unread.dropped), unit: "exchanges", baseline: nil)
        try await paced(wrk, base: base, folder: folder)
    }

    /// wrk held near `pacedRate` requests a second: each of `pacedConnections` waits 1 ms (wrk's
    /// `delay`, in whole ms) before each request. Every new ID as above. wrk cannot pace by the
    /// rate itself, and each round trip adds to the millisecond, so a round short of the rate is
    /// run again, on a fresh tap, with connections in proportion, up to `pacedAttempts` rounds
    /// and `pacedConnectionLimit` connections.
    static let pacedConnections = 21
    static let pacedRate = 10_000
    static let pacedAttempts = 3
    static let pacedConnectionLimit = 48
    /// One paced round's wrk figures, and what its tap read and dropped.
    typealias PacedRound = (run: Run, unread: (read: Int, dropped: Int, readerCPU: Double?))
    static let pacedScript =
        script + """

            delay = function()
              return 1
            end
            """

    /// A fresh tap under about 10,000 requests a second: whether its reader reads every exchange
    /// there (the issue's bar), counted once the reader had 2 s to catch up after the load. The
    /// figures are the first round's at or past the rate, or the nearest's.
    static func paced(_ wrk: String, base: String, folder: String) async throws {
        let scriptFile = folder + "/paced.lua"
        try pacedScript.write(toFile: scriptFile, atomically: true, encoding: .utf8)
        var connections = pacedConnections
        var best: PacedRound?
        for _ in 0..<pacedAttempts {
            let round = try await pacedRound(
                wrk, base: base, script: scriptFile, folder: folder, connections: connections)
            if best.map({ round.run.perSecond > $0.run.perSecond }) ?? true { best = round }
            BenchReport.say(
                String(
                    format:
                        "paced near %d/s (wrk -c%d, 1 ms between requests): %.0f requests/s, %.1f µs CPU/request, p99 %.3f ms; read %d of %d, dropped %d unread",
                    pacedRate, connections, round.run.perSecond, round.run.cpuPerRequest, median(round.run.p99),
                    round.unread.read, round.run.requests, round.unread.dropped))
            guard round.run.perSecond < Double(pacedRate), connections < pacedConnectionLimit else { break }
            let scaled = Double(connections) * Double(pacedRate) / max(round.run.perSecond, 1) * 1.03
            connections = min(pacedConnectionLimit, max(connections + 1, Int(scaled.rounded(.up))))
        }
        guard let best else { return }
        BenchReport.figure("tap_paced_unread", value: Double(best.unread.dropped), unit: "exchanges", baseline: nil)
        BenchReport.figure(
            "tap_paced_requests_per_second", value: best.run.perSecond, unit: "1/s", baseline: Double(pacedRate))
    }

    /// One paced wrk run against a fresh tap, and what the tap read of it.
    static func pacedRound(_ wrk: String, base: String, script: String, folder: String, connections: Int) async throws
        -> PacedRound
    {
        let counts = folder + "/paced-counts"
        try? FileManager.default.removeItem(atPath: counts)
        let tap = try ServerProcess(
            childArguments: [TapBenchmark.childFlag, "analysed", base],
            environment: [TapBenchmark.countsVariable: counts])
        var run = Run()
        do {
            try await measure(
                wrk, tap.baseURL, script: script, folder: folder, connections: connections, cpu: tap.cpuSeconds,
                into: &run)
        } catch {
            tap.stop()
            throw error
        }
        try await Task.sleep(for: .seconds(2))
        tap.stop()
        return (run, try TapBenchmark.readCounts(counts))
    }

    /// The median of the rounds' figures: each round is one wrk run.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// One wrk run against `url`, added to `run` with the proxy's CPU over it.
    static func measure(
        _ wrk: String, _ url: URL, script: String, folder: String, connections: Int = connections,
        cpu: () throws -> Double, into run: inout Run
    ) async throws {
        let output = folder + "/wrk.txt"
        let before = try cpu()
        let pid = try ChildProcess.spawn(
            [wrk, "-t1", "-c\(connections)", "-d\(seconds)s", "--latency", "-s", script, url.absoluteString],
            output: output)
        let (status, _) = await ChildProcess.exit(of: pid)
        let after = try cpu()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0, let report = WrkReport(text) else {
            throw MintBenchmark.BenchmarkError(
                "wrk against \(url) exited \(status): \(text.split(separator: "\n").last ?? "no output")")
        }
        run.requests += report.requests
        run.seconds += report.seconds
        run.cpu += after - before
        run.p50.append(report.p50)
        run.p99.append(report.p99)
        run.errors += report.errors
    }
}
