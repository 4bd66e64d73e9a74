import Foundation
import RouteServer

/// `tap-soak` (on request: ten minutes): the tap with its reader and metrics, in a child process,
/// in front of an upstream restarted every 60 s (down for half a second each time, as a deploy
/// takes it), at a paced 2,000 requests a second over 8 keep-alive connections. It passes when
/// the tap never dies, every answer is the upstream's (a 200) or a 502 or 504 within 2 s of a
/// restart, its RSS at the end is within 10 % of minute 2's, and its open file descriptors are
/// back to minute 2's count. `TOKENDASH_BENCH_SOAK_SECONDS` (default 600) makes it shorter.
enum TapSoakBenchmark {
    static var seconds: Double {
        ProcessInfo.processInfo.environment["TOKENDASH_BENCH_SOAK_SECONDS"].flatMap(Double.init).map {
            min(3600, max(150, $0))
        } ?? 600
    }
    static let restartEvery: Double = 60
    static let down: Duration = .milliseconds(500)
    /// How long after a restart began an answer that is not a 200 still belongs to it.
    static let window: Double = 2
    static let reference: Double = 120

    struct Sample {
        var at: Double
        var rssKiB: Int
        var descriptors: Int
    }

    static func run() async throws {
        var upstream = NIORouteServer(routes: UnsignedTokenRoutes(), host: "127.0.0.1", port: 0)
        let port = try await upstream.start()
        let tap = try ServerProcess(childArguments: [TapBenchmark.childFlag, "analysed", "http://127.0.0.1:\(port)"])
        defer { tap.stop() }
        let load = try KeepAliveLoad(baseURL: tap.baseURL, connections: 8, rate: 2000)
        let begin = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9 }
        load.start()
        var samples: [Sample] = []
        var restarts: [Double] = []
        var nextRestart = restartEvery
        var alive = true
        while elapsed() < seconds, alive {
            try await Task.sleep(for: .seconds(1))
            alive = kill(tap.pid, 0) == 0 && waitpid(tap.pid, nil, WNOHANG) == 0
            if let sample = sample(tap.pid, at: elapsed()) { samples.append(sample) }
            if elapsed() >= nextRestart {
                restarts.append(elapsed())
                await upstream.stop(gracePeriod: 0)
                try await Task.sleep(for: down)
                upstream = try await restarted(port: port)
                nextRestart += restartEvery
            }
        }
        await load.stop()
        let cpu = (try? tap.cpuSeconds()) ?? 0
        await upstream.stop(gracePeriod: 0.1)
        let counts = load.counts
        let unusual = load.unusualAnswers.map { (at: Double($0.at - begin) / 1e9, status: $0.status) }
        let outside = unusual.filter { answer in
            ![200, 502, 504].contains(answer.status)
                || (answer.status != 200 && !restarts.contains { answer.at >= $0 && answer.at < $0 + window })
        }
        var tally: [Int: Int] = [:]
        for answer in unusual { tally[answer.status, default: 0] += 1 }
        let atReference = samples.first { $0.at >= reference }
        let last = samples.last
        let rssDrift = atReference.flatMap { ref in last.map { Double($0.rssKiB - ref.rssKiB) / Double(ref.rssKiB) } }
        MintBenchmark.printTable([
            (
                "run",
                String(format: "%.0f s at 2,000 requests/s, the upstream restarted %d times", elapsed(), restarts.count)
            ),
            ("the tap", alive ? "alive to the end" : "DIED"),
            ("answers", "\(counts.succeeded.formatted()) of them 200 on a kept connection"),
            (
                "the tap's CPU",
                String(
                    format: "%.0f s, %.0f µs a request (every request a new ID: the ledger at its limit after 50 s)",
                    cpu,
                    cpu * 1e6 / Double(max(1, counts.succeeded + counts.failed)))
            ),
            (
                "other answers",
                tally.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key == 0 ? "no answer" : "\($0.key)")" }
                    .joined(separator: ", ")
            ),
            ("outside a restart's 2 s", outside.isEmpty ? "none" : "\(outside.count): \(outside.prefix(5))"),
            (
                "RSS, minute 2 → end",
                "\(atReference.map { "\($0.rssKiB / 1024) MiB" } ?? "-") → \(last.map { "\($0.rssKiB / 1024) MiB" } ?? "-")"
                    + (rssDrift.map { String(format: " (%+.1f %%)", $0 * 100) } ?? "")
            ),
            (
                "open descriptors, minute 2 → end",
                "\(atReference.map { "\($0.descriptors)" } ?? "-") → \(last.map { "\($0.descriptors)" } ?? "-")"
            ),
        ])
        BenchReport.figure(
            "tap_soak_rss_mib", value: Double(last?.rssKiB ?? 0) / 1024, unit: "MiB",
            baseline: Double(atReference?.rssKiB ?? 0) / 1024)
        var problems: [String] = []
        if !alive { problems.append("the tap died") }
        if !outside.isEmpty { problems.append("\(outside.count) answers outside a restart's window") }
        if let rssDrift, rssDrift > 0.10 { problems.append(String(format: "RSS grew %.1f %%", rssDrift * 100)) }
        if let atReference, let last, last.descriptors > atReference.descriptors {
            problems.append("descriptors \(atReference.descriptors) → \(last.descriptors)")
        }
        if !problems.isEmpty { throw MintBenchmark.BenchmarkError(problems.joined(separator: "; ")) }
    }

    /// The upstream again on its port; the old socket may take a moment to be released.
    static func restarted(port: UInt16) async throws -> NIORouteServer<UnsignedTokenRoutes> {
        var lastError: (any Error)?
        for _ in 0..<50 {
            let server = NIORouteServer(routes: UnsignedTokenRoutes(), host: "127.0.0.1", port: port)
            do {
                _ = try await server.start()
                return server
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        throw MintBenchmark.BenchmarkError(
            "the upstream did not come back on port \(port): \(String(describing: lastError))")
    }

    /// The process's RSS (VmRSS) and open descriptors (/proc/PID/fd) now.
    static func sample(_ pid: pid_t, at time: Double) -> Sample? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        else { return nil }
        return Sample(at: time, rssKiB: kib, descriptors: descriptors)
    }
}
