import Foundation
import ProviderVocabulary
import Spawning
import Synchronization
import TokenServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Tokens per second the embedded server mints over keep-alive HTTP, per core of the server's
/// own CPU time (the server runs as a child process, so the load generator's CPU is not counted),
/// against jwt-kit signing the same claims with the same key on one core, and against
/// `openssl speed rsa2048`. The ratio to jwt-kit is what HTTP, routing and bookkeeping cost on
/// top of the signature; the ratio to OpenSSL adds what jwt-kit and BoringSSL cost on top of that.
enum MintBenchmark {
    static let warmUp: Duration = .seconds(1)
    /// Server load and jwt-kit signing take turns this many times, for these totals.
    static let rounds = 12
    static let measured: Duration = .seconds(12)
    static let rawSignDuration: Duration = .seconds(6)
    static let opensslSeconds = 3

    struct HTTPRun {
        var succeeded = 0
        var failed = 0
        var connections = 0
        var connectionsOpened = 0
        var elapsed: Double = 0
        /// CPU seconds of the server process alone, and of this process (the load generator).
        var serverCPU: Double = 0
        var clientCPU: Double = 0
        var stats: ServerStats?

        /// Tokens per server CPU second in each round.
        var rounds: [Double] = []

        var tokensPerSecond: Double { Double(succeeded) / elapsed }
        var serverCores: Double { serverCPU / elapsed }
        /// The median round's: a burst of other work on the machine moves one round, not the figure.
        var perCore: Double { median(rounds) }
    }

    struct RawSignRun {
        /// Wall time spent signing through jwt-kit, all rounds.
        var elapsed: Double = 0
        /// Signs per CPU second in each round, and signatures alone (jwt-kit's RS256 algorithm on a
        /// ready signing input: no JSON, no assembly): one core's rates, whatever else the machine runs.
        var rounds: [Double] = []
        var signatureRounds: [Double] = []
        /// Signatures alone on every core at once, per CPU second: one core's rate while the
        /// others sign too, as the server's cores all sign under the load.
        var togetherRounds: [Double] = []

        var perCore: Double { median(rounds) }
        var signaturesPerCore: Double { median(signatureRounds) }
        var signaturesTogetherPerCore: Double { median(togetherRounds) }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    @Sendable static func run() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let keyFile = try BenchKey.write()
        defer { try? FileManager.default.removeItem(atPath: keyFile) }

        let server = try ServerProcess(keyFile: keyFile)
        let http: HTTPRun
        let raw: RawSignRun
        do {
            (http, raw) = try await measure(server, keyFile: keyFile, connections: 2 * cores)
        } catch {
            server.stop()
            throw error
        }
        server.stop()
        let openssl = try opensslSignsPerSecond()

        var rows: [(String, String)] = [
            ("requests ok / failed", "\(http.succeeded) / \(http.failed)"),
            ("keep-alive connections (opened)", "\(http.connections) (\(http.connectionsOpened))"),
            ("cores on this machine", "\(cores)"),
            (
                "measured wall time (server / jwt-kit)",
                "\(format(http.elapsed, "s")) / \(format(raw.elapsed, "s")) in \(rounds) rounds"
            ),
            ("tokens/s over HTTP", format(http.tokensPerSecond)),
            (
                "server mint p50 / p99",
                "\(ms(http.stats?.mintLatencyP50Milliseconds.map { $0 / 1000 })) / \(ms(http.stats?.mintLatencyP99Milliseconds.map { $0 / 1000 }))"
            ),
            ("server CPU cores used", format(http.serverCores)),
            ("load generator CPU cores used", format(http.clientCPU / http.elapsed)),
            ("server tokens/s per core used (median round)", format(http.perCore)),
            ("jwt-kit RS256 sign/s (1 core, median round)", format(raw.perCore)),
            ("ratio: server per core / jwt-kit", String(format: "%.2f", http.perCore / raw.perCore)),
            ("  round by round, lowest - highest", roundRatios(http.rounds, raw.rounds)),
            ("jwt-kit RS256 signature alone/s (1 core)", format(raw.signaturesPerCore)),
            ("ratio: server per core / signature alone", String(format: "%.2f", http.perCore / raw.signaturesPerCore)),
            (
                "jwt-kit RS256 signature alone/s, \(cores) cores at once (per core)",
                format(raw.signaturesTogetherPerCore)
            ),
            (
                "ratio: server per core / that",
                String(format: "%.2f", http.perCore / max(raw.signaturesTogetherPerCore, 1e-6))
            ),
        ]
        if let openssl {
            rows.append(("openssl speed rsa2048 sign/s (1 core)", format(openssl)))
            rows.append(("ratio: server per core / openssl", String(format: "%.2f", http.perCore / openssl)))
            rows.append(("ratio: jwt-kit / openssl", String(format: "%.2f", raw.perCore / openssl)))
        } else {
            rows.append(("openssl speed rsa2048 sign/s", "unavailable"))
        }
        printTable(rows)
        BenchReport.say(
            "Per core means per CPU second: the server's from /proc/PID/stat, jwt-kit's and openssl's their own user time."
        )
        BenchReport.say("Server load and jwt-kit signing take turns \(rounds) times; each figure is its median round.")
        BenchReport.figure(
            "mint_per_core_vs_raw_sign", value: http.perCore, unit: "tokens/s/core", baseline: raw.perCore)
        BenchReport.figure("mint_per_core_vs_openssl", value: http.perCore, unit: "tokens/s/core", baseline: openssl)
        BenchReport.figure(
            "mint_per_core_vs_signature_alone", value: http.perCore, unit: "tokens/s/core",
            baseline: raw.signaturesPerCore)
        BenchReport.figure(
            "mint_per_core_vs_signature_all_cores", value: http.perCore, unit: "tokens/s/core",
            baseline: raw.signaturesTogetherPerCore)
        BenchReport.figure("jwtkit_raw_sign_per_s", value: raw.perCore, unit: "signs/s/core", baseline: openssl)
        BenchReport.figure("mint_tokens_per_s", value: http.tokensPerSecond, unit: "tokens/s", baseline: nil)
        if http.failed > 0 { throw BenchmarkError("\(http.failed) requests failed") }
    }

    /// Alternates keep-alive load on the server process with jwt-kit signing in this one, so
    /// both see the same machine: other work on it slows both alike instead of skewing the ratio.
    static func measure(_ server: ServerProcess, keyFile: String, connections: Int) async throws -> (
        HTTPRun, RawSignRun
    ) {
        let signer = try await BenchKey.jwtKitSigner(keyFile: keyFile)
        let load = try KeepAliveLoad(baseURL: server.baseURL, connections: connections)
        load.start()
        try await Task.sleep(for: warmUp)
        var http = HTTPRun()
        var raw = RawSignRun()
        var n = 0
        // A few signs first, so lazy set-up is not in the figure.
        for _ in 0..<20 {
            n += 1
            _ = try await signer.sign(n)
        }
        for round in 0..<rounds {
            if round > 0 {
                load.resume()
                try await Task.sleep(for: .milliseconds(200))
            }
            let before = load.counts
            let serverBefore = try server.cpuSeconds()
            let clientBefore = cpuSeconds()
            let start = ContinuousClock.now
            try await Task.sleep(for: measured / rounds)
            let after = load.counts
            let serverCPU = try server.cpuSeconds() - serverBefore
            http.serverCPU += serverCPU
            http.clientCPU += cpuSeconds() - clientBefore
            http.elapsed += seconds(ContinuousClock.now - start)
            http.succeeded += after.succeeded - before.succeeded
            http.rounds.append(Double(after.succeeded - before.succeeded) / max(serverCPU, 1e-6))
            load.pause()
            // Let the requests in flight finish before this process signs on its own.
            try await Task.sleep(for: .milliseconds(50))

            let signed = try await repeatBatches(for: rawSignDuration / rounds) {
                for _ in 0..<batch {
                    n += 1
                    _ = try await signer.sign(n)
                }
            }
            raw.elapsed += signed.elapsed
            raw.rounds.append(Double(signed.operations) / max(signed.cpu, 1e-6))
            let signatures = try await repeatBatches(for: rawSignDuration / rounds / 2) {
                for _ in 0..<batch { _ = try signer.signature() }
            }
            raw.signatureRounds.append(Double(signatures.operations) / max(signatures.cpu, 1e-6))
            raw.togetherRounds.append(
                signTogether(
                    signer, threads: ProcessInfo.processInfo.activeProcessorCount, for: rawSignDuration / rounds / 2))
        }
        load.resume()
        await load.stop()
        http.failed = load.counts.failed
        http.connections = connections
        http.connectionsOpened = load.counts.connectionsOpened
        http.stats = await fetchStats(server.baseURL)
        return (http, raw)
    }

    static let batch = 25

    /// Signatures alone on `threads` threads at once for `duration`, per CPU second of this
    /// process (the load is paused, so its threads are idle).
    static func signTogether(_ signer: BenchKey.Signer, threads: Int, for duration: Duration) -> Double {
        let deadline = ContinuousClock.now + duration
        let cpuBefore = cpuSeconds()
        // Guards the signatures made, summed over the threads.
        let made = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var n = 0
            while ContinuousClock.now < deadline {
                // Only signatures made count: a failing signer must not read as a fast one.
                for _ in 0..<batch {
                    if (try? signer.signature()) != nil { n += 1 }
                }
            }
            let signed = n
            made.withLock { $0 += signed }
        }
        return Double(made.withLock { $0 }) / max(cpuSeconds() - cpuBefore, 1e-6)
    }

    /// The lowest and highest of the rounds' ratios, server round i against jwt-kit round i.
    static func roundRatios(_ server: [Double], _ raw: [Double]) -> String {
        let ratios = zip(server, raw).map { $0 / max($1, 1e-6) }
        guard let low = ratios.min(), let high = ratios.max() else { return "-" }
        return String(format: "%.2f - %.2f", low, high)
    }

    /// Runs `body` (`batch` operations) again and again for `duration`; returns the operations
    /// done, the wall time and this process's CPU seconds.
    static func repeatBatches(for duration: Duration, _ body: () async throws -> Void) async rethrows -> (
        operations: Int, elapsed: Double, cpu: Double
    ) {
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        var operations = 0
        while ContinuousClock.now < start + duration {
            try await body()
            operations += batch
        }
        return (operations, seconds(ContinuousClock.now - start), cpuSeconds() - cpuBefore)
    }

    static func fetchStats(_ base: URL) async -> ServerStats? {
        guard let url = URL(string: base.absoluteString + "/stats"),
            let (body, _) = try? await URLSession.shared.data(from: url)
        else { return nil }
        return try? JSONDecoder().decode(ServerStats.self, from: body)
    }

    /// OpenSSL's own RSA-2048 signing rate on one core, from `openssl speed`; nil if openssl is missing or fails.
    static func opensslSignsPerSecond() throws -> Double? {
        guard
            let output = runWithDefaultSignals(
                ["openssl", "speed", "-seconds", "\(opensslSeconds)", "rsa2048"],
                limit: .seconds(opensslSeconds * 10))
        else { return nil }
        return parseOpenSSLSpeed(output)
    }

    /// Runs a command found on PATH and returns its stdout, or nil if it cannot start, fails, or
    /// outlives `limit`. Started with every signal at its default and none blocked (Dispatch's
    /// threads block them, and `openssl speed -seconds` times itself with SIGALRM, so it would never stop).
    static func runWithDefaultSignals(_ arguments: [String], limit: Duration) -> String? {
        guard let command = arguments.first, let path = ChildProcess.onPath(command) else { return nil }
        var fds: [Int32] = [0, 0]
        guard fds.withUnsafeMutableBufferPointer({ pipe($0.baseAddress) }) == 0 else { return nil }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let spawned = try? ChildProcess.spawn(
            [path] + arguments.dropFirst(), stdin: .devNull, stdout: .descriptor(writeEnd), stderr: .devNull)
        close(writeEnd)
        guard let pid = spawned else {
            close(readEnd)
            return nil
        }
        // A watchdog, so a command that hangs costs `limit`, not the whole run.
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds(limit), execute: watchdog)
        let output = FileHandle(fileDescriptor: readEnd, closeOnDealloc: true).readDataToEndOfFile()
        let status = ChildProcess.waitHere(pid)
        watchdog.cancel()
        guard status == 0 else { return nil }
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

    struct BenchmarkError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
