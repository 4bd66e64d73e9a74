import FleetAuth
import Foundation
import Synchronization
import TokenServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tokens per second the embedded server mints over HTTP, against what one core of OpenSSL
/// signs per second: the ratio per core used says how much HTTP, JSON and jwt-kit cost on top
/// of the RSA signature itself.
enum MintBenchmark {
    static let maximumRequests = 3000
    static let maximumDuration: Duration = .seconds(10)
    static let opensslSeconds = 3

    struct HTTPRun {
        var succeeded = 0
        var failed = 0
        var elapsed: Double = 0
        var cpuSeconds: Double = 0
        /// Client-side request latencies in seconds, sorted.
        var latencies: [Double] = []
    }

    @Sendable static func run() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let clients = 2 * cores
        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration())
        let base = try await server.start()
        let http: HTTPRun
        do {
            http = try await load(base: base, clients: clients)
        } catch {
            await server.stop()
            throw error
        }
        let stats = await server.stats()
        await server.stop()
        let openssl = try opensslSignsPerSecond()

        let tokensPerSecond = Double(http.succeeded) / http.elapsed
        let coresUsed = http.cpuSeconds / http.elapsed
        let perCore = tokensPerSecond / max(coresUsed, 0.01)
        var rows: [(String, String)] = [
            ("requests ok / failed", "\(http.succeeded) / \(http.failed)"),
            ("clients (URLSession, concurrent)", "\(clients)"),
            ("cores on this machine", "\(cores)"),
            ("wall time", format(http.elapsed, "s")),
            ("tokens/s over HTTP", format(tokensPerSecond)),
            ("client latency p50 / p99", "\(ms(percentile(0.5, http.latencies))) / \(ms(percentile(0.99, http.latencies)))"),
            ("server mint p50 / p99", "\(ms(stats.mintLatencyP50Milliseconds.map { $0 / 1000 })) / \(ms(stats.mintLatencyP99Milliseconds.map { $0 / 1000 }))"),
            ("CPU cores used (server + clients)", format(coresUsed)),
            ("tokens/s per core used", format(perCore)),
        ]
        if let openssl {
            rows.append(("openssl speed rsa2048 sign/s (1 core)", format(openssl)))
            rows.append(("ratio: per core used / openssl", String(format: "%.2f", perCore / openssl)))
            rows.append(("ratio: tokens/s / openssl", String(format: "%.2f", tokensPerSecond / openssl)))
        } else {
            rows.append(("openssl speed rsa2048 sign/s", "unavailable"))
        }
        printTable(rows)
        BenchReport.say("CPU includes the in-process URLSession clients, so per-core figures understate the server alone.")
        if http.failed > 0 { throw BenchmarkError("\(http.failed) requests failed") }
    }

    /// `clients` tasks, each with its own URLSession, share a budget of requests until it or the time runs out.
    static func load(base: URL, clients: Int) async throws -> HTTPRun {
        let tickets = Tickets()
        let deadline = ContinuousClock.now + maximumDuration
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        let perClient = try await withThrowingTaskGroup(of: HTTPRun.self) { group in
            for client in 0..<clients {
                group.addTask {
                    let config = URLSessionConfiguration.ephemeral
                    config.requestCachePolicy = .reloadIgnoringLocalCacheData
                    let session = URLSession(configuration: config)
                    defer { session.invalidateAndCancel() }
                    var run = HTTPRun()
                    while ContinuousClock.now < deadline {
                        let n = tickets.take()
                        if n > maximumRequests { break }
                        let kind = n % 2 == 0 ? "consumer" : "driver"
                        guard let url = URL(string: "\(base.absoluteString)/token/\(kind)/bench-\(client)-\(n)") else { continue }
                        let sent = ContinuousClock.now
                        do {
                            let (body, response) = try await session.data(for: URLRequest(url: url))
                            if (response as? HTTPURLResponse)?.statusCode == 200, body.count > 100 {
                                run.succeeded += 1
                                run.latencies.append(seconds(ContinuousClock.now - sent))
                            } else {
                                run.failed += 1
                            }
                        } catch {
                            run.failed += 1
                        }
                    }
                    return run
                }
            }
            var all: [HTTPRun] = []
            for try await run in group { all.append(run) }
            return all
        }
        var total = HTTPRun()
        total.elapsed = seconds(ContinuousClock.now - start)
        total.cpuSeconds = cpuSeconds() - cpuBefore
        for run in perClient {
            total.succeeded += run.succeeded
            total.failed += run.failed
            total.latencies += run.latencies
        }
        total.latencies.sort()
        return total
    }

    /// OpenSSL's own RSA-2048 signing rate on one core, from `openssl speed`; nil if openssl is missing or fails.
    static func opensslSignsPerSecond() throws -> Double? {
        guard let output = runWithDefaultSignals(["openssl", "speed", "-seconds", "\(opensslSeconds)", "rsa2048"],
                                                 limit: .seconds(opensslSeconds * 10)) else { return nil }
        return parseOpenSSLSpeed(output)
    }

    /// Runs a command and returns its stdout, or nil if it cannot start, fails, or outlives `limit`.
    /// Not Foundation's `Process`: its children inherit this process's blocked signals (Dispatch
    /// threads block them), and `openssl speed -seconds` times itself with SIGALRM, so it never stops.
    static func runWithDefaultSignals(_ arguments: [String], limit: Duration) -> String? {
        var fds: [Int32] = [0, 0]
        guard fds.withUnsafeMutableBufferPointer({ pipe($0.baseAddress) }) == 0 else { return nil }
        let (readEnd, writeEnd) = (fds[0], fds[1])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noneBlocked = sigset_t()
        sigemptyset(&noneBlocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGALRM, SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &noneBlocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        close(writeEnd)
        guard spawned == 0 else { close(readEnd); return nil }

        // A watchdog, so a command that hangs costs `limit`, not the whole run.
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds(limit), execute: watchdog)
        let output = FileHandle(fileDescriptor: readEnd, closeOnDealloc: true).readDataToEndOfFile()
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        watchdog.cancel()
        // Exited normally (low 7 bits 0) with code 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else { return nil }
        return String(decoding: output, as: UTF8.self)
    }

    /// Reads the sign/s column of the result line, e.g. `rsa 2048 bits 0.000649s 0.000019s   1541.6  52428.6`.
    static func parseOpenSSLSpeed(_ output: String) -> Double? {
        for line in output.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 7, fields[0] == "rsa", fields[1] == "2048", fields[2] == "bits" else { continue }
            // Two times in seconds (suffixed "s"), then sign/s and verify/s.
            return Double(fields[5])
        }
        return nil
    }

    // MARK: - Helpers

    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }

    static func percentile(_ p: Double, _ sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func ms(_ seconds: Double?) -> String {
        seconds.map { String(format: "%.2f ms", $0 * 1000) } ?? "-"
    }

    static func format(_ value: Double, _ unit: String = "") -> String {
        let text = value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
        return unit.isEmpty ? text : "\(text) \(unit)"
    }

    static func printTable(_ rows: [(String, String)]) {
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            BenchReport.say(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
    }

    /// Hands out request numbers to the clients; an atomic, boxed so the client tasks can share it.
    final class Tickets: Sendable {
        private let next = Atomic<Int>(0)
        func take() -> Int { next.add(1, ordering: .relaxed).newValue }
    }

    struct BenchmarkError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
