import FlyingFox
import Foundation
import ProviderVocabulary
import TestSupport
import Testing

/// The config file as a user meets it: the real binary, a config folder of the test's own (never
/// the user's), `config check`'s report and exit codes, and `watch` run from a profile.
@Suite(.serialized, .timeLimit(.minutes(15))) struct ConfigEndToEndTests {
    /// A folder to stand for $XDG_CONFIG_HOME, with `yaml` as tokendash/config.yaml.
    static func configHome(_ yaml: String) throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-config-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("tokendash"), withIntermediateDirectories: true)
        try Data(yaml.utf8).write(to: home.appendingPathComponent("tokendash/config.yaml"))
        return home
    }

    static let yaml = """
        default-profile: demo
        defaults:
          refresh-margin: 20
          update-interval: 0.5
        profiles:
          demo:
            trip-id: trip-from-profile
            vehicle-id: vehicle-from-profile
            refresh-margin: 10
          staging:
            consumer-url: https://user:hunter2@staging.example.com/token/consumer/{tripId}
            driver-url: https://staging.example.com/token/driver/{vehicleId}
            headers:
              X-Api-Key: ${TOKENDASH_TEST_KEY}
        keys:
          refresh: R
          refresh-both: r
        """

    /// The value and source columns of `config check`'s row for `name`.
    func row(_ stdout: String, _ name: String) -> String? {
        stdout.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            .map {
                $0.dropFirst(name.count).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            }
    }

    @Test func checkShowsEachSettingAndWhereItCameFrom() async throws {
        let home = try Self.configHome(Self.yaml)
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryRunner.run(
            ["config", "check", "--vehicle-id", "vehicle-flag"],
            environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("config file: \(home.path)/tokendash/config.yaml"))
        #expect(out.contains("profile: demo (default-profile (line 1))"))
        // flag > profile > defaults > built-in, each for one setting.
        #expect(row(out, "vehicle-id") == "vehicle-flag flag --vehicle-id")
        #expect(row(out, "trip-id") == "trip-from-profile profile demo (line 7)")
        #expect(row(out, "refresh-margin") == "10.0 profile demo (line 9)")
        #expect(row(out, "update-interval") == "0.5 defaults (line 4)")
        #expect(row(out, "timeout") == "10.0 built-in")
        #expect(row(out, "tracking-id") == "tracking-0001 built-in")
        #expect(out.contains("refresh: R") && out.contains("refresh-both: r"))
    }

    /// One setting through all four layers: each one given wins over those below it.
    @Test(arguments: [
        ("refresh-margin", "300.0", "20.0", "10.0"), ("timeout", "10.0", "7.0", "3.0"), ("lifetime", "60", "120", "30"),
    ])
    func eachLayerWinsOverTheOnesBelow(_ name: String, _ builtIn: String, _ inDefaults: String, _ inProfile: String)
        async throws
    {
        let home = try Self.configHome(
            """
            defaults:
              \(name): \(inDefaults)
            profiles:
              p:
                \(name): \(inProfile)
              q: {}
            """)
        defer { try? FileManager.default.removeItem(at: home) }
        func check(_ arguments: [String]) async throws -> String? {
            let result = try await BinaryRunner.run(
                ["config", "check"] + arguments, environment: ["XDG_CONFIG_HOME": home.path])
            #expect(result.status == 0, "\(result.stderr)")
            return row(result.stdout, name)
        }
        #expect(try await check(["--config", "/dev/null"]) == "\(builtIn) built-in")
        #expect(try await check(["--profile", "q"]) == "\(inDefaults) defaults (line 2)")
        #expect(try await check(["--profile", "p"]) == "\(inProfile) profile p (line 5)")
        #expect(try await check(["--profile", "p", "--\(name)", "5"])?.hasPrefix("5") == true)
        #expect(try await check(["--profile", "p", "--\(name)", "5"])?.hasSuffix("flag --\(name)") == true)
    }

    @Test func checkRedactsSecrets() async throws {
        let home = try Self.configHome(Self.yaml)
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryRunner.run(
            ["config", "check", "--profile", "staging", "--header", "X-Other: flag-secret"],
            environment: ["XDG_CONFIG_HOME": home.path, "TOKENDASH_TEST_KEY": "env-secret-123"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            !result.stdout.contains("hunter2") && !result.stdout.contains("env-secret-123")
                && !result.stdout.contains("flag-secret"),
            "\(result.stdout)")
        #expect(
            row(result.stdout, "consumer-url")?.hasPrefix(
                "https://‹hidden›@staging.example.com/token/consumer/{tripId} profile staging") == true)
        #expect(result.stdout.contains("X-Api-Key: <redacted> (from $TOKENDASH_TEST_KEY)"))
        #expect(result.stdout.contains("X-Other: <redacted>"))
        #expect(row(result.stdout, "refresh-margin") == "20.0 defaults (line 3)", "staging sets none")
    }

    @Test func checkFailsWithTheLineOfTheMistake() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-bad-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("profiles:\n  p:\n    lifetime: 0\n".utf8).write(to: file)
        let result = try await BinaryRunner.run(["config", "check", "--config", file.path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == "tokendash config check: \(file.path):3: lifetime must be between 1 and 3600 seconds\n")

        let home = try Self.configHome(Self.yaml)
        defer { try? FileManager.default.removeItem(at: home) }
        let missing = try await BinaryRunner.run(
            ["config", "check", "--profile", "staging"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(missing.status == 2)
        #expect(
            missing.stderr.contains(
                "config.yaml:14: header X-Api-Key of profile staging: environment variable TOKENDASH_TEST_KEY is not set"
            ))
        let unknown = try await BinaryRunner.run(
            ["config", "check", "--profile", "prod"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--profile prod: no such profile; known: demo, staging"))
    }

    @Test func noConfigFileIsFineButANamedOneMustExist() async throws {
        let none = try await BinaryRunner.run(["config", "check"])
        #expect(none.status == 0)
        #expect(
            none.stdout.contains(
                "config file: none at \(BinaryRunner.emptyConfigHome.path)/tokendash/config.yaml (built-in settings)"))
        let missing = try await BinaryRunner.run([
            "watch", "--duration", "1", "--config", "/nonexistent/tokendash.yaml",
        ])
        #expect(missing.status == 2)
        #expect(missing.stderr == "tokendash watch: /nonexistent/tokendash.yaml: no such config file\n")
    }

    /// The profile's IDs reach the tokens, and a flag still wins over the profile.
    @Test func watchRunsFromTheProfile() async throws {
        let home = try Self.configHome(Self.yaml)
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryRunner.run(
            ["watch", "--profile", "demo", "--duration", "2", "--events", "fetched", "--vehicle-id", "vehicle-flag"],
            environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 0, "\(result.stderr)")
        let ids = Set(
            result.stdout.split(separator: "\n").compactMap { line -> String? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["id"] as? String
            })
        #expect(ids == ["trip-from-profile", "vehicle-flag"])
    }

    /// A header read from the environment reaches the backend: it answers only with the key.
    @Test func aProfileHeaderFromTheEnvironmentIsSent() async throws {
        let server = try await LoopbackServer.start { request in
            guard request.headers[FlyingFox.HTTPHeader("X-Api-Key")] == "env-secret-123" else {
                return HTTPResponse(statusCode: .unauthorized)
            }
            let id = request.path.split(separator: "/").last.map(String.init) ?? ""
            let kind: ProviderKind = request.path.hasPrefix("/t/") ? .consumer : .driver
            let jwt = TestJWT.make(kind: kind, id: id, lifetime: 600, account: TestJWT.nonServiceAccount)
            return HTTPResponse(
                statusCode: .ok,
                body: Data(
                    "{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\(Int(Date().timeIntervalSince1970) + 600)}".utf8))
        }
        defer { Task { await server.stop() } }
        let yaml = """
            profiles:
              loopback:
                consumer-url: \(server.base)/t/{tripId}
                driver-url: \(server.base)/v/{vehicleId}
                headers:
                  X-Api-Key: ${TOKENDASH_TEST_KEY}
            """
        let home = try Self.configHome(yaml)
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryRunner.run(
            ["watch", "--profile", "loopback", "--duration", "1.5", "--summary"],
            environment: ["XDG_CONFIG_HOME": home.path, "TOKENDASH_TEST_KEY": "env-secret-123"])
        #expect(result.status == 0, "both sides got a token: \(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("env-secret-123"))
    }

    /// A broken file stops the dashboard before it looks for a terminal: one line, exit 2.
    @Test func aBrokenFileStopsTheDashboardBeforeTheScreen() async throws {
        let home = try Self.configHome("keys:\n  refresh: R\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryRunner.run([], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "tokendash: \(home.path)/tokendash/config.yaml:2: key R for refresh is already bound to refresh-both; remap refresh-both too to swap them\n"
        )
    }

    /// A theme the file names is checked like `--theme`, and reported at its line; `--theme` wins.
    @Test func aThemeFromTheFileIsReportedAtItsLine() async throws {
        let home = try Self.configHome("defaults:\n  theme: nope\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryRunner.run([], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "tokendash: \(home.path)/tokendash/config.yaml:2: nope: unknown theme; available: default, high-contrast, light, mono\n"
        )
        let flag = try await BinaryRunner.run(["--theme", "light"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(flag.stderr.contains("the dashboard needs a terminal"), "the flag's theme loaded: \(flag.stderr)")
    }
}
