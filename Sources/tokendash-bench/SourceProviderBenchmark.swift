import FleetAuth
import Foundation
import ProviderHost
import Spawning

/// A customer's provider class through its host: a cached `fetchToken` (a request line out, the
/// host's thread, the class's cache hit, the completion line back, the rules on the token) against
/// a bare JSON-lines echo over the same kind of pipe, in the same run; and the class's first build
/// against a build taken from the cache. Issue 31's bound: at most 2x the echo.
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

    /// The baseline: reads request lines and answers each with a completion line, nothing else.
    static let echo = #"""
        #if canImport(Glibc)
        import Glibc
        #endif
        let channel = 1
        func send(_ line: String) {
          let bytes = Array((line + "\n").utf8)
          _ = bytes.withUnsafeBytes { write(Int32(channel), $0.baseAddress, $0.count) }
        }
        send("{\"t\":\"ready\"}")
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
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
        let builder = HostBuilder(swiftc: swiftc, sanitize: false, cacheRoot: folder.appendingPathComponent("cache"))
        let clock = ContinuousClock()
        var built: HostBuilder.Built?
        let firstBuild = try await clock.measure { built = try await builder.build(source) }
        let cachedBuild = try await clock.measure { _ = try await builder.build(source) }
        guard let built else { throw MintBenchmark.BenchmarkError("no build") }

        let provider = SourceTokenProvider<VehicleAuthorizationContext>(
            launch: HostLaunch(
                executable: built.executable, fileName: "CachesItsToken.swift", sourceText: source.buildText,
                environment: ["PATH": "/usr/bin:/bin"]),
            settings: SourceSettings(parallelCalls: 1))
        let context = VehicleAuthorizationContext(id: "vehicle-0001")
        _ = try await provider.fetchToken(for: context)
        let throughHost = try await clock.measure {
            for _ in 0..<calls { _ = try await provider.fetchToken(for: context) }
        }
        await provider.shutdown()

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
        let bare = try await clock.measure {
            for call in 1...calls {
                host.send(HostMessage.request(call: call, id: "vehicle-0001"))
                guard case .message(.completion)? = await outputs.next() else {
                    throw MintBenchmark.BenchmarkError("the echo stopped")
                }
            }
        }
        host.terminate()

        let perCall = seconds(throughHost) / Double(calls)
        let perEcho = seconds(bare) / Double(calls)
        MintBenchmark.printTable([
            ("", "through the host  |  bare JSON-lines echo (baseline)"),
            ("cached fetchToken, mean of \(calls)", "\(micros(perCall))  |  \(micros(perEcho))"),
            (
                "within 2x the echo",
                perCall <= 2 * perEcho ? "yes" : "NO (\(String(format: "%.1f", perCall / perEcho))x)"
            ),
            ("", "first build  |  from the cache (baseline)"),
            (
                "build of the class and its host",
                "\(MintBenchmark.ms(seconds(firstBuild)))  |  \(MintBenchmark.ms(seconds(cachedBuild)))"
            ),
        ])
        BenchReport.figure("source_fetch_us", value: perCall * 1e6, unit: "us", baseline: perEcho * 1e6)
        BenchReport.figure(
            "source_build_ms", value: seconds(firstBuild) * 1000, unit: "ms", baseline: seconds(cachedBuild) * 1000)
        BenchReport.say(
            "A call through the host: a request line, a thread of the host's, the class's cache hit, a completion line, the rules on the token."
        )
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func micros(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
}
