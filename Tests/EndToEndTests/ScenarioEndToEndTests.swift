import Foundation
import Testing

/// `--scenario` and `tokendash scenario` on the built binary.
@Suite(.timeLimit(.minutes(15))) struct ScenarioEndToEndTests {
    @Test(.enabled(if: DashboardEndToEndTests.tmuxInstalled, "needs tmux"))
    func backendOutageRunsToItsEndInTmux() async throws {
        let (status, text) = try await BinaryRunner.runScript(named: "e2e-scenario.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains("e2e: ok"))
    }

    func withFile(_ text: String, _ body: (String) async throws -> Void) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-scenario-\(UUID().uuidString).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try await body(file.path)
    }

    @Test func aBrokenScenarioFileIsReportedWithItsLineBeforeTheScreen() async throws {
        try await withFile(
            "name: demo\nending: done\nsteps:\n  - at: 5s\n    refresh: both\n  - at: 2s\n    fault: http500\n"
        ) { path in
            // No terminal here either: the scenario is checked first, so the message is the file's.
            let result = try await BinaryRunner.run(["--scenario", path])
            #expect(result.status == 2)
            #expect(
                result.stderr
                    == "tokendash: \(path):6: at: 2s is before the step above (due at 5s): times may not go backwards\n"
            )
            let check = try await BinaryRunner.run(["scenario", "check", path])
            #expect(check.status == 2)
            #expect(check.stderr == result.stderr)
        }
    }

    @Test func checkAcceptsAGoodFileAndListNamesTheBuiltins() async throws {
        try await withFile("name: demo\nending: done\nsteps:\n  - refresh: both\n  - until: fetched driver\n") { path in
            let check = try await BinaryRunner.run(["scenario", "check", path])
            #expect(check.status == 0)
            #expect(check.stdout == "\(path): ok, scenario demo, 2 steps\n")
        }
        let list = try await BinaryRunner.run(["scenario", "list"])
        #expect(
            list.stdout.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
                == [
                    "refresh-ahead", "id-switch", "backend-outage", "clock-skew", "wrong-id", "rate-limited",
                    "revoked-key", "skewed-phone", "sample-race",
                ])
        let show = try await BinaryRunner.run(["scenario", "show", "rate-limited"])
        #expect(show.stdout.hasPrefix("name: rate-limited\n"))
    }

    @Test func aServerScenarioIsRefusedWithTheUsersBackend() async throws {
        let result = try await BinaryRunner.run([
            "--scenario", "backend-outage", "--consumer-url", "http://127.0.0.1:9/token/consumer/{tripId}",
            "--driver-url", "http://127.0.0.1:9/token/driver/{vehicleId}",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("scenario backend-outage changes the embedded token server"))
    }
}
