import Foundation
import ProviderHost
import ProviderVocabulary
import Spawning

/// A customer's provider class through its host: a cached `fetchToken` (a request line out, a
/// worker thread of the host's, the class's cache hit, the
/// completion and return lines back, the same token again being a cache hit without the rules)
/// against a bare JSON-lines echo over the same kind of pipe, in the same run, with the host built
/// as `--no-sanitize` builds it and as a run builds it by default (ThreadSanitizer on); and the
/// class's first build against a build taken from the cache. Issue 31's bound: at most 2x the echo.
/// The Objective-C host and the JVM host (`JavaWay`, against a JVM echo of its own) take their
/// turns in the same rounds.
enum SourceProviderBenchmark {
    static let calls = 2_000

    /// A class that fetched once and serves its token from then on, as a good provider does.
    static func cachingClass(token: String) -> String {
        """
        import GoogleRidesharingDriver

        class CachesItsToken: NSObject, GMTDAuthorization {
          private let lock = NSLock()
          private var token: String?

          func fetchToken(with authorizationContext: GMTDAuthorizationContext?,
                          completion: @escaping GMTDAuthTokenFetchCompletionHandler) {
            lock.lock()
            if token == nil { token = "\(token)" }
            let cached = token
            lock.unlock()
            completion(cached, nil)
          }
        }

        """
    }

    /// The same class in Objective-C, for the Objective-C host's row.
    static func cachingObjCClass(token: String) -> String {
        """
        #import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

        @interface CachesItsToken : NSObject <GMTDAuthorization>
        @end

        @implementation CachesItsToken {
          NSString *_token;
        }
        - (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                           completion:(GMTDAuthTokenFetchCompletionHandler)completion {
          NSString *cached;
          @synchronized(self) {
            if (!_token) _token = @"\(token)";
            cached = _token;
          }
          completion(cached, nil);
        }
        @end

        """
    }

    /// The baseline: reads request lines and answers each with a completion line, nothing else.
    static let echo = #"""
        #if canImport(Glibc)
        import Glibc
        #endif
        // The protocol's descriptors, as HostConnection gives them: requests on 3, messages on 4.
        let channel = 4
        func send(_ line: String) {
          let bytes = Array((line + "\n").utf8)
          _ = bytes.withUnsafeBytes { write(Int32(channel), $0.baseAddress, $0.count) }
        }
        send("{\"t\":\"ready\"}")
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          let count = buffer.withUnsafeMutableBytes { read(3, $0.baseAddress, $0.count) }
          if count <= 0 { break }
          pending += buffer[0..<count]
          while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            guard let start = line.firstRange(of: "\"call\":") else { continue }
            let call = line[start.upperBound...].prefix { $0.isNumber }
            send("{\"t\":\"completion\",\"call\":\(call),\"token\":\"x\"}")
          }
        }
        """#

    /// Rounds the calls are split into, the three ways taking turns, so a machine that gets busy
    /// mid-run slows each alike rather than skewing the ratios.
    static let rounds = 10

    @Sendable static func run() async throws {
        let swiftc = try HostBuilder.findSwiftc(given: nil)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-bench-source-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = Int(Date().timeIntervalSince1970)
        let token = ProviderBenchmark.CountingBackend.jwt(id: "vehicle-0001", iat: now, exp: now + 3600)
        let file = folder.appendingPathComponent("CachesItsToken.swift")
        try Data(cachingClass(token: token).utf8).write(to: file)
        let source = try ProviderSourceFile.read(file.path, role: .driver, providerURL: "http://127.0.0.1:9/unused")
        let clock = ContinuousClock()
        // The host as `--no-sanitize` builds it, and as a run builds it by default (ThreadSanitizer on).
        let plainBuilder = HostBuilder(
            swiftc: swiftc, sanitize: false, cacheRoot: folder.appendingPathComponent("cache"))
        var plain: HostBuilder.Built?
        let firstBuild = try await clock.measure { plain = try await plainBuilder.build(source) }
        let cachedBuild = try await clock.measure { _ = try await plainBuilder.build(source) }
        let sanitizedBuilder = HostBuilder(
            swiftc: swiftc, sanitize: true, cacheRoot: folder.appendingPathComponent("cache"))
        let sanitized = try await sanitizedBuilder.build(source)
        guard let plain else { throw MintBenchmark.BenchmarkError("no build") }

        let context = VehicleAuthorizationContext(id: "vehicle-0001")
        let plainProvider = try await provider(plain, source: source, context: context)
        let sanitizedProvider = try await provider(sanitized, source: source, context: context)
        let objc = try await ObjectiveCWay.prepare(in: folder, token: token)
        let objcProvider = try await provider(objc.built, source: objc.source, context: context)
        var java = try await JavaWay.prepare(in: folder, token: token)
        var javaProvider: SourceTokenProvider<VehicleAuthorizationContext>?
        let javaStart = try await clock.measure {
            javaProvider = try await provider(java.built, source: java.source, context: context)
        }

        let echoSource = folder.appendingPathComponent("echo.swift")
        try Data(echo.utf8).write(to: echoSource)
        let echoBinary = folder.appendingPathComponent("echo").path
        let log = folder.appendingPathComponent("echo.log").path
        let pid = try ChildProcess.spawn(
            [swiftc, "-O", echoSource.path, "-o", echoBinary], stdin: .devNull, stdout: .file(log), stderr: .stdout)
        guard await ChildProcess.exit(of: pid).0 == 0 else {
            throw MintBenchmark.BenchmarkError(
                "the echo did not build: " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
        }
        let host = try HostConnection(executable: echoBinary, fileName: "echo.swift", environment: [:])
        var outputs = host.outputs.makeAsyncIterator()
        _ = await outputs.next()

        guard let plainPID = await plainProvider.hostProcess, let sanitizedPID = await sanitizedProvider.hostProcess,
            let objcPID = await objcProvider.hostProcess, let javaProvider, let javaPID = await javaProvider.hostProcess
        else { throw MintBenchmark.BenchmarkError("a host is not running") }
        // Each way's wall time, and the CPU time it took on each side: tokendash's process, its child's.
        var (plainWay, sanitizedWay, echoWay, objcWay) = (Way(), Way(), Way(), Way())
        var (javaWay, javaEchoWay) = (Way(), Way())
        let perRound = calls / rounds
        for round in 0..<rounds {
            try await echoWay.measure(child: host.pid) {
                for call in 1...perRound {
                    host.send(HostMessage.request(call: round * perRound + call, id: "vehicle-0001"))
                    guard case .message(.completion)? = await outputs.next() else {
                        throw MintBenchmark.BenchmarkError("the echo stopped")
                    }
                }
            }
            try await plainWay.measure(child: plainPID) {
                for _ in 0..<perRound { _ = try await plainProvider.fetchToken(for: context) }
            }
            try await sanitizedWay.measure(child: sanitizedPID) {
                for _ in 0..<perRound { _ = try await sanitizedProvider.fetchToken(for: context) }
            }
            try await objcWay.measure(child: objcPID) {
                for _ in 0..<perRound { _ = try await objcProvider.fetchToken(for: context) }
            }
            try await javaEchoWay.measure(child: java.echo.pid) {
                try await java.echoCalls(perRound, from: round * perRound + 1)
            }
            try await javaWay.measure(child: javaPID) {
                for _ in 0..<perRound { _ = try await javaProvider.fetchToken(for: context) }
            }
        }
        host.terminate()
        java.echo.terminate()
        for provider in [plainProvider, sanitizedProvider, objcProvider, javaProvider] { await provider.shutdown() }

        report(
            plain: plainWay, sanitized: sanitizedWay, echo: echoWay, count: Double(perRound * rounds),
            builds: (seconds(firstBuild), seconds(cachedBuild)))
        objc.report(way: objcWay, echo: echoWay, count: Double(perRound * rounds))
        java.report(
            way: javaWay, echoWay: javaEchoWay, count: Double(perRound * rounds), hostStart: seconds(javaStart))
    }

    /// A built host's provider, started and past its first call (which starts the host and judges
    /// the token; the rest are cache hits).
    static func provider(
        _ built: HostBuilder.Built, source: ProviderSourceFile, context: VehicleAuthorizationContext
    ) async throws -> SourceTokenProvider<VehicleAuthorizationContext> {
        let provider = SourceTokenProvider<VehicleAuthorizationContext>(
            launch: HostLaunch(
                executable: built.executable, fileName: source.fileName, sourceText: source.buildText,
                environment: built.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }, sources: built.sources),
            settings: SourceSettings(parallelCalls: 1))
        _ = try await provider.fetchToken(for: context)
        return provider
    }

    /// The table and the figures: each way per call beside the echo's, and the builds.
    static func report(
        plain plainWay: Way, sanitized sanitizedWay: Way, echo echoWay: Way, count: Double,
        builds: (first: Double, cached: Double)
    ) {
        let perCall = plainWay.wall / count
        let perSanitizedCall = sanitizedWay.wall / count
        let perEcho = echoWay.wall / count
        func cpu(_ way: Way) -> String {
            "\(micros(way.ownCPU / count)) in tokendash + \(micros(way.childCPU / count)) in the child"
        }
        func within(_ value: Double) -> String {
            value <= 2 * perEcho ? "yes" : "NO (\(String(format: "%.1f", value / perEcho))x)"
        }
        MintBenchmark.printTable([
            ("", "through the host  |  bare JSON-lines echo (baseline)"),
            (
                "cached fetchToken, --no-sanitize host, mean of \(Int(count))",
                "\(micros(perCall))  |  \(micros(perEcho))"
            ),
            ("  within 2x the echo", within(perCall)),
            (
                "cached fetchToken, ThreadSanitizer host (the default), mean of \(Int(count))",
                "\(micros(perSanitizedCall))  |  \(micros(perEcho))"
            ),
            ("  within 2x the echo", within(perSanitizedCall)),
            ("CPU a call, --no-sanitize host", cpu(plainWay)),
            ("CPU a call, ThreadSanitizer host", cpu(sanitizedWay)),
            ("CPU a call, echo", cpu(echoWay)),
            ("", "first build  |  from the cache (baseline)"),
            (
                "build of the class and its host",
                "\(MintBenchmark.ms(builds.first))  |  \(MintBenchmark.ms(builds.cached))"
            ),
        ])
        BenchReport.figure("source_fetch_us", value: perCall * 1e6, unit: "us", baseline: perEcho * 1e6)
        BenchReport.figure(
            "source_fetch_sanitized_us", value: perSanitizedCall * 1e6, unit: "us", baseline: perEcho * 1e6)
        BenchReport.figure(
            "source_build_ms", value: builds.first * 1000, unit: "ms", baseline: builds.cached * 1000)
        BenchReport.say(
            "A call through the host: a request line, a worker thread of the host's (reused in turn, never the last call's), the class's cache hit, a completion and a return line, the rules' verdict kept from the first call. The hosts (Swift plain and sanitized, Objective-C, the JVM) and the echoes (a Swift one, and a JVM one for the JVM host) take turns in \(rounds) rounds."
        )
    }

    /// One way's totals over its rounds: wall time, and CPU time in this process and in its child.
    struct Way {
        var wall = 0.0
        var ownCPU = 0.0
        var childCPU = 0.0

        mutating func measure(child: pid_t, _ body: () async throws -> Void) async throws {
            let (own, other, start) = (
                MintBenchmark.cpuSeconds(), try ServerProcess.cpuSeconds(of: child), ContinuousClock.now
            )
            try await body()
            wall += seconds(ContinuousClock.now - start)
            ownCPU += MintBenchmark.cpuSeconds() - own
            childCPU += try ServerProcess.cpuSeconds(of: child) - other
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func micros(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
}
