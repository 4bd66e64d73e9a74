import Foundation
import ObjCRuntime
import ProviderHost

/// The Objective-C row of the source section: `tokendash setup objc` timed into a folder of the
/// run's own (from the tarballs in `TOKENDASH_BENCH_OBJC_SOURCES`, else ../shared/vendor/objc),
/// the caching class's first build against one from the cache, and a cached `fetchToken` through
/// the Objective-C host (`--no-sanitize`) beside the same run's bare echo. Without the tarballs the
/// user's own runtime is used, and setup is not timed.
struct ObjectiveCWay {
    let built: HostBuilder.Built
    let source: ProviderSourceFile
    /// Setup's wall time; nil when the user's runtime was used.
    let setup: Double?
    let firstBuild: Double
    let cachedBuild: Double

    static func prepare(in folder: URL, token: String) async throws -> ObjectiveCWay {
        let clock = ContinuousClock()
        let sources =
            ProcessInfo.processInfo.environment["TOKENDASH_BENCH_OBJC_SOURCES"]
            ?? FileManager.default.currentDirectoryPath + "/../shared/vendor/objc"
        var root = ObjCRuntime.root()
        var setupSeconds: Double?
        if FileManager.default.fileExists(atPath: sources + "/" + (ObjCRuntime.releases.first?.file ?? "")) {
            root = folder.appendingPathComponent("objc")
            let setup = RuntimeSetup(
                root: root, sources: URL(fileURLWithPath: sources),
                toolchain: try RuntimeSetup.Toolchain.find(given: nil),
                report: { _ in })
            setupSeconds = SourceProviderBenchmark.seconds(try await clock.measure { _ = try await setup.run() })
        }
        guard ObjCRuntime.installed(root: root) != nil else {
            throw MintBenchmark.BenchmarkError(ObjCRuntime.missingSentence(root: root))
        }
        let file = folder.appendingPathComponent("CachesItsToken.m")
        try Data(SourceProviderBenchmark.cachingObjCClass(token: token).utf8).write(to: file)
        let source = try ProviderSourceFile.read(file.path, role: .driver, providerURL: "http://127.0.0.1:9/unused")
        var builder = HostBuilder(swiftc: "", sanitize: false, cacheRoot: folder.appendingPathComponent("objc-cache"))
        builder.objcRuntimeRoot = root
        var built: HostBuilder.Built?
        let first = try await clock.measure { built = try await builder.build(source) }
        let cached = try await clock.measure { _ = try await builder.build(source) }
        guard let built else { throw MintBenchmark.BenchmarkError("no Objective-C build") }
        return ObjectiveCWay(
            built: built, source: source, setup: setupSeconds, firstBuild: SourceProviderBenchmark.seconds(first),
            cachedBuild: SourceProviderBenchmark.seconds(cached))
    }

    func report(way: SourceProviderBenchmark.Way, echo: SourceProviderBenchmark.Way, count: Double) {
        let perCall = way.wall / count
        let perEcho = echo.wall / count
        let within = perCall <= 2 * perEcho ? "yes" : "NO (\(String(format: "%.1f", perCall / perEcho))x)"
        MintBenchmark.printTable([
            ("", "through the Objective-C host  |  bare JSON-lines echo (baseline)"),
            (
                "cached fetchToken, Objective-C host (--no-sanitize), mean of \(Int(count))",
                "\(SourceProviderBenchmark.micros(perCall))  |  \(SourceProviderBenchmark.micros(perEcho))"
            ),
            ("  within 2x the echo", within),
            (
                "CPU a call, Objective-C host",
                "\(SourceProviderBenchmark.micros(way.ownCPU / count)) in tokendash + \(SourceProviderBenchmark.micros(way.childCPU / count)) in the child"
            ),
            ("", "first build  |  from the cache (baseline)"),
            (
                "build of the Objective-C class and its host",
                "\(MintBenchmark.ms(firstBuild))  |  \(MintBenchmark.ms(cachedBuild))"
            ),
            (
                "tokendash setup objc (libobjc2, gnustep-make, gnustep-base)",
                setup.map { String(format: "%.1f s", $0) } ?? "not timed: no tarballs, the user's runtime used"
            ),
        ])
        BenchReport.figure("source_objc_fetch_us", value: perCall * 1e6, unit: "us", baseline: perEcho * 1e6)
        BenchReport.figure(
            "source_objc_build_ms", value: firstBuild * 1000, unit: "ms", baseline: cachedBuild * 1000)
        if let setup { BenchReport.figure("objc_setup_s", value: setup, unit: "s", baseline: nil) }
    }
}
