import Foundation
import TestSupport
import Testing

/// The customer's own provider class through the real binary: the Swift samples of Google's
/// "Get authorization tokens" pages (the seeds beside the repo), verbatim and with the one `!`
/// they need, built with the toolchain on PATH and run against the embedded server.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct SourceProviderEndToEndTests {
    static let seeds = BinaryRunner.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/seeds")
    /// Each seed's Swift sample: the file, its first and last line, and the side it provides for.
    static let samples: [(seed: String, lines: ClosedRange<Int>, role: String)] = [
        ("003_5d3db011ec98076c.txt", 33...101, "driver"),
        ("000_600d290c07f2ea16.txt", 24...85, "consumer"),
    ]
    /// One build cache for the run: each sample is built once.
    static let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-source-e2e-\(getpid())")

    /// The sample of `seed`, verbatim or with `!` after `URL(string: providerURL)`, as a file of its own.
    static func sample(_ index: Int, bang: Bool) throws -> String {
        let (seed, lines, role) = samples[index]
        let text = try String(contentsOf: seeds.appendingPathComponent(seed), encoding: .utf8)
        var code =
            text.split(separator: "\n", omittingEmptySubsequences: false)[
                (lines.lowerBound - 1)...(lines.upperBound - 1)
            ]
            .joined(separator: "\n") + "\n"
        if bang {
            code = code.replacingOccurrences(of: "URL(string: providerURL))", with: "URL(string: providerURL)!)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-seed-\(role)-\(bang)-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("SampleAccessTokenProvider.swift").path
        try Data(code.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [0, 1])
    func aVerbatimSampleFailsAtItsURLLineLocated(_ index: Int) async throws {
        let path = try Self.sample(index, bang: false)
        let line = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .firstIndex { $0.contains("URL(string: providerURL)") }.map { $0 + 1 }
        let role = Self.samples[index].role
        let result = try await BinaryRunner.run(
            ["watch", "--\(role)-source", path, "--only", role, "--duration", "1"],
            environment: ["XDG_CACHE_HOME": Self.cache.path])
        #expect(result.status == 2)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("\(path):\(line ?? 0):"))
        #expect(first.contains(": error: value of optional type 'URL?' must be unwrapped"))
        #expect(result.stdout.isEmpty)
    }

    /// Both samples with the `!`, side by side, tokens of 8 s asked for every second: within the
    /// lifetime and two intervals each serves its expired token, Fleet Engine refuses it, and
    /// ThreadSanitizer names the sample's two lines.
    @Test func samplesWithTheBangShowServedAfterExpTheRefusalAndTheRace() async throws {
        let driver = try Self.sample(0, bang: true)
        let consumer = try Self.sample(1, bang: true)
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", driver, "--consumer-source", consumer, "--lifetime", "8",
                "--update-interval", "1",
                "--fleet-engine-interval", "1", "--duration", "60",
            ], name: "source-watch", environment: BinaryRunner.environment(["XDG_CACHE_HOME": Self.cache.path]))
        // Either sample's race, at its own two lines (the same code; ThreadSanitizer sees a race
        // when the two threads' first calls interleave, which the load on the machine decides).
        let race = try await watch.await(#"("provider":"[a-z]+","id":"[a-z]+-0001","event":"data_race".*)"#)
        let driverRace = race?.hasPrefix(#""provider":"driver""#) == true
        #expect(
            race?.contains(
                driverRace
                    ? "SampleAccessTokenProvider.swift:63 writes authToken while SampleAccessTokenProvider.swift:34 reads it"
                    : "SampleAccessTokenProvider.swift:57 writes authToken while SampleAccessTokenProvider.swift:31 reads it"
            ) == true)
        #expect(race?.contains(driverRace ? #""lines":[34,63]"# : #""lines":[31,57]"#) == true)
        for role in ["driver", "consumer"] {
            #expect(
                try await watch.await(#""provider":"\#(role)","id":"[a-z]+-0001","event":"(served_after_exp)""#) != nil)
            let refusal = try await watch.await(
                #"("provider":"\#(role)".*"event":"fleet_engine_call".*"status":"UNAUTHENTICATED".*)"#)
            #expect(refusal?.contains("JWT expired") == true)
        }
        #expect(watch.output.contains("SampleAccessTokenProvider.swift:3: filled INSERT_YOUR_TOKEN_PROVIDER_URL"))
        await watch.stop()
    }

    /// The host reuses its threads, in turn, and hands them calls with no order ThreadSanitizer
    /// trusts: two calls one after the other that touch a variable without a lock are reported,
    /// as they would be were each call on a thread of its own.
    @Test func callsOneAfterTheOtherStillRaceOnAVariableWithoutALock() async throws {
        let fixture = BinaryRunner.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/CountsWithoutALock.swift"
        ).path
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            ["watch", "--driver-source", fixture, "--only", "driver", "--update-interval", "0.2", "--duration", "60"],
            name: "source-race", environment: BinaryRunner.environment(["XDG_CACHE_HOME": Self.cache.path]))
        let race = try await watch.await(#"("event":"data_race".*)"#)
        #expect(race?.contains("CountsWithoutALock.swift:18 touches the same state") == true, "\(race ?? watch.output)")
        #expect(race?.contains(#""lines":[18,18]"#) == true)
        await watch.stop()
    }

    /// The fault menu's faults act on the customer's class through the embedded server's session
    /// route: a 500 makes its completion fail, a latency makes its answer late, and the server counts both.
    @Test func faultsActOnTheCustomersRequests() async throws {
        let fixture = BinaryRunner.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Fixtures/AsksEveryTime.swift"
        ).path
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", fixture, "--only", "driver", "--no-sanitize", "--update-interval", "0.5",
                "--duration", "120",
            ], name: "source-faults", environment: BinaryRunner.environment(["XDG_CACHE_HOME": Self.cache.path]))
        let base = try #require(try await watch.await(#"embedded token server on (http://127\.0\.0\.1:[0-9]+)"#))
        #expect(try await watch.await(#""event":"(fetched)""#) != nil)
        _ = try await BinaryRunner.run(
            ["-s", "-X", "PUT", base + "/faults/driver/http500"], executable: URL(fileURLWithPath: "/usr/bin/curl"))
        let failed = try await watch.await(#""event":"fetch_failed","error":"([^"]*missingData[^"]*)""#)
        #expect(failed == "your code's completion gave an error: missingData")
        _ = try await BinaryRunner.run(
            ["-s", "-X", "PUT", base + "/faults/driver/latency?ms=1500"],
            executable: URL(fileURLWithPath: "/usr/bin/curl"))
        // The first answer at least 1.5 s late (the request before the switch may still be a 500's).
        let late = try await watch.await(
            #""event":"fetched"[^\n]*"latency_ms":(1[5-9][0-9][0-9]|[2-9][0-9][0-9][0-9])\."#)
        #expect(late != nil)
        let stats = try await BinaryRunner.run(
            ["-s", base + "/stats"], executable: URL(fileURLWithPath: "/usr/bin/curl"))
        let counts =
            (try? JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])?["driver"]
            as? [String: Any]
        #expect((counts?["faulted"] as? Int ?? 0) >= 2)
        #expect((counts?["errors"] as? Int ?? 0) >= 1)
        await watch.stop()
    }
}
