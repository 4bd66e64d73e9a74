import BoundedYAML
import ConfigFile
import Foundation
import KeyTable
import Testing
import UICore

/// The config file: which value wins, environment variables in headers, and each mistake as
/// `file:line: reason`.
@Suite(.timeLimit(.minutes(15))) struct ConfigFileTests {
    static let sample = """
        default-profile: local
        defaults:
          theme: light
          refresh-margin: 20
          update-interval: 2
        profiles:
          local:
            trip-id: trip-local
            refresh-margin: 10
          staging:
            consumer-url: https://user:pw@staging.example.com/token/consumer/{tripId}
            driver-url: https://staging.example.com/token/driver/{vehicleId}
            theme: high-contrast
            headers:
              X-Api-Key: ${STAGING_KEY}
              Authorization: Bearer ${STAGING_TOKEN} costs $$5
            expiry: absolute-ms
        keys:
          refresh: R
          refresh-both: [r, b]
        """

    func parse(_ yaml: String) throws(FileProblem) -> ConfigFile {
        try ConfigFile(yaml: yaml, path: "/cfg/config.yaml")
    }

    func error(_ yaml: String, profile: String? = nil, environment: [String: String] = [:]) -> String {
        do {
            _ = try parse(yaml).resolve(profile: profile, environment: environment)
            return "no error"
        } catch {
            return error.description
        }
    }

    // MARK: precedence

    @Test func theProfileWinsOverDefaultsWhichWinOverBuiltIn() throws {
        let local = try parse(Self.sample).resolve(profile: nil, environment: [:])
        #expect(local.profile == "local" && local.profileChoice == "default-profile (line 1)")
        #expect(local.text(.refreshMargin) == "10" && local[.refreshMargin]?.source == .profile("local", line: 9))
        #expect(local.text(.updateInterval) == "2" && local[.updateInterval]?.source == .defaults(line: 5))
        #expect(local.text(.theme) == "light" && local[.theme]?.source == .defaults(line: 3))
        #expect(local.text(.tripID) == "trip-local")
        #expect(local.text(.vehicleID) == nil, "left to the built-in default")

        let staging = try parse(Self.sample).resolve(
            profile: "staging", environment: ["STAGING_KEY": "k", "STAGING_TOKEN": "t"])
        #expect(staging.profileChoice == "--profile")
        #expect(staging.text(.theme) == "high-contrast" && staging[.theme]?.source == .profile("staging", line: 13))
        #expect(staging.text(.refreshMargin) == "20", "staging sets none: the defaults' value")
        #expect(staging.text(.tripID) == nil)
        #expect(staging.text(.expiry) == "absolute-ms")
    }

    @Test func withoutAProfileOnlyDefaultsApply() throws {
        let yaml = Self.sample.replacingOccurrences(of: "default-profile: local\n", with: "")
        let resolved = try parse(yaml).resolve(profile: nil, environment: [:])
        #expect(resolved.profile == nil)
        #expect(resolved.text(.refreshMargin) == "20" && resolved.text(.tripID) == nil)
    }

    @Test func noFileAtTheDefaultPlaceIsFineButANamedOneMustExist() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/config.yaml"
        #expect(
            try ResolvedConfig.load(ConfigLocation(path: missing, explicit: false), profile: nil, environment: [:])
                == .none)
        #expect(throws: FileProblem(file: missing, line: nil, "no such config file")) {
            try ResolvedConfig.load(ConfigLocation(path: missing, explicit: true), profile: nil, environment: [:])
        }
        #expect(throws: FileProblem(file: missing, line: nil, "--profile p: there is no config file")) {
            try ResolvedConfig.load(ConfigLocation(path: missing, explicit: false), profile: "p", environment: [:])
        }
    }

    @Test func theDefaultPlaceFollowsXDG() {
        #expect(
            ConfigLocation(flag: nil, environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]).path
                == "/x/tokendash/config.yaml")
        #expect(
            ConfigLocation(flag: nil, environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"]).path
                == "/h/.config/tokendash/config.yaml")
        #expect(
            ConfigLocation(flag: nil, environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]).path
                == "/h/.config/tokendash/config.yaml")
        #expect(
            ConfigLocation(flag: "mine.yaml", environment: ["XDG_CONFIG_HOME": "/x"])
                == ConfigLocation(path: "mine.yaml", explicit: true))
    }

    // MARK: headers from the environment

    @Test func headerValuesReadTheEnvironment() throws {
        let staging = try parse(Self.sample).resolve(
            profile: "staging", environment: ["STAGING_KEY": "k-123", "STAGING_TOKEN": "abc"])
        guard case .headers(let headers)? = staging[.headers]?.value else {
            Issue.record("no headers")
            return
        }
        #expect(headers.map(\.name) == ["X-Api-Key", "Authorization"])
        #expect(headers.map(\.value) == ["k-123", "Bearer abc costs $5"])
        #expect(headers.map(\.line) == [15, 16])
        #expect(headers[1].template.variables == ["STAGING_TOKEN"])
    }

    @Test func aMissingVariableIsAnErrorAtItsHeader() {
        #expect(
            error(Self.sample, profile: "staging", environment: ["STAGING_KEY": "k"])
                == "/cfg/config.yaml:16: header Authorization of profile staging: environment variable STAGING_TOKEN is not set"
        )
    }

    @Test func aProfileNotUsedMayNameVariablesNotSet() throws {
        #expect(try parse(Self.sample).resolve(profile: "local", environment: [:]).profile == "local")
    }

    @Test func aBareDollarIsAnError() {
        let yaml = "profiles:\n  p:\n    headers:\n      X-Key: $KEY\n"
        #expect(
            error(yaml)
                == "/cfg/config.yaml:4: header X-Key: write ${NAME} to read an environment variable, or $$ for a $")
    }

    // MARK: errors at their lines

    /// The nine-level chain (9^9 nodes expanded) under `x:`, then its last anchor used as a key.
    static let aliasBombAsKey: String = {
        var lines = ["x:"]
        for i in 0..<9 {
            let item = i == 0 ? "lol" : "*a\(i - 1)"
            lines.append("  a\(i): &a\(i) [" + Array(repeating: item, count: 9).joined(separator: ",") + "]")
        }
        return (lines + ["y: {*a8 : lol}", ""]).joined(separator: "\n")
    }()

    @Test(arguments: [
        (
            "profile: x\n",
            "/cfg/config.yaml:1: unknown key \"profile\" in the config file; known: default-profile, defaults, profiles, keys"
        ),
        (
            "profiles:\n  p:\n    trip-idd: x\n",
            "/cfg/config.yaml:3: unknown key \"trip-idd\" in profile p; known: solution, consumer-url, driver-url, token-key, expiry-key, expiry, jwks, cacert, proxy, provider-id, trip-id, vehicle-id, tracking-id, delivery-vehicle-id, trips, vehicles, only, headers, refresh-margin, timeout, lifetime, update-interval, theme, ramp, fleet-engine, fleet-engine-interval, provider-logic, consumer-source, driver-source, completion-timeout"
        ),
        (
            "defaults:\n  trip-id: x\n",
            "/cfg/config.yaml:2: unknown key \"trip-id\" in defaults; known: trips, vehicles, refresh-margin, timeout, lifetime, update-interval, theme, ramp, fleet-engine-interval, provider-logic, completion-timeout"
        ),
        ("defaults:\n  ramp: -1\n", "/cfg/config.yaml:2: ramp must be 0 seconds to 1 day"),
        (
            "defaults:\n  refresh-margin: soon\n",
            "/cfg/config.yaml:2: refresh-margin must be a number of seconds, got soon"
        ),
        ("defaults:\n  refresh-margin: -1\n", "/cfg/config.yaml:2: refresh-margin must be 0 seconds to 30 days"),
        ("defaults:\n  update-interval: 0.01\n", "/cfg/config.yaml:2: update-interval must be 0.05 seconds to 30 days"),
        ("defaults:\n  timeout: 0\n", "/cfg/config.yaml:2: timeout must be more than 0 seconds and at most 30 days"),
        ("defaults:\n\n  lifetime: 4000\n", "/cfg/config.yaml:3: lifetime must be between 1 and 3600 seconds"),
        ("defaults:\n  trips: many\n", "/cfg/config.yaml:2: trips must be a whole number, got many"),
        (
            "profiles:\n  p:\n    trip-id: [a, b]\n",
            "/cfg/config.yaml:3: trip-id must be a single value, not a list or mapping"
        ),
        (
            "profiles:\n  p:\n    consumer-url: ftp://user:secret@host/x\n",
            "/cfg/config.yaml:3: consumer-url must be an http(s) URL, got ftp://‹hidden›@host/x"
        ),
        (
            "profiles:\n  p:\n    expiry: sometimes\n",
            "/cfg/config.yaml:3: expiry must be one of absolute, absolute-ms, relative, auto, jwt; got sometimes"
        ),
        ("profiles:\n  p:\n    cacert: missing.pem\n", "/cfg/config.yaml:3: cacert: cannot read /cfg/missing.pem"),
        ("profiles: 3\n", "/cfg/config.yaml:1: profiles must be a mapping of keys to values"),
        ("profiles:\n  p:\n    trip-id: a\n    trip-id: b\n", "/cfg/config.yaml:3: trip-id given twice in one mapping"),
        (
            "default-profile: prod\nprofiles:\n  dev: {}\n",
            "/cfg/config.yaml:1: default-profile prod is not a profile; known: dev"
        ),
        (
            "keys:\n  refresh: R\n",
            "/cfg/config.yaml:2: key R for refresh is already bound to refresh-both; remap refresh-both too to swap them"
        ),
        (
            "keys:\n  refresh: [Z, F13]\n",
            "/cfg/config.yaml:2: unknown key \"F13\" for refresh; use one character, or one of backspace, down, end, enter, esc, home, left, right, space, tab, up"
        ),
        (
            "keys:\n\n  reload: R\n",
            "/cfg/config.yaml:3: unknown key \"reload\" in keys; known: "
                + Command.allCases.map(\.rawValue).joined(separator: ", ")
        ),
        ("keys:\n  refresh: []\n", "/cfg/config.yaml:2: refresh needs at least one key"),
        ("defaults: [1, 2]\n", "/cfg/config.yaml:1: defaults must be a mapping of keys to values"),
        ("profiles:\n  p:\n    trip-id: [a\n", "/cfg/config.yaml:4: YAML syntax: did not find expected ',' or ']'"),
        // Numbers from outside end at a bound, so none can trap where it becomes a clock tick.
        ("defaults:\n  refresh-margin: 1e300\n", "/cfg/config.yaml:2: refresh-margin must be 0 seconds to 30 days"),
        ("defaults:\n  timeout: inf\n", "/cfg/config.yaml:2: timeout must be a number of seconds, got inf"),
        (
            "defaults:\n  update-interval: 2592001\n",
            "/cfg/config.yaml:2: update-interval must be 0.05 seconds to 30 days"
        ),
        ("defaults:\n  trips: 9223372036854775807\n", "/cfg/config.yaml:2: trips must be between 1 and 100000"),
        (
            "defaults:\n  vehicles: 99999999999999999999\n",
            "/cfg/config.yaml:2: vehicles must be a whole number, got 99999999999999999999"
        ),
        // An alias bomb, here used as a key: refused before Yams hashes it (which never ended).
        (
            ConfigFileTests.aliasBombAsKey,
            "/cfg/config.yaml:6: aliases expand past 10000 nodes (an alias bomb?); refused"
        ),
    ])
    func eachMistakeIsOneLineAtItsLine(_ yaml: String, _ message: String) {
        #expect(error(yaml) == message)
    }

    @Test func anUnknownProfileListsTheKnownOnes() {
        #expect(
            error(Self.sample, profile: "prod")
                == "/cfg/config.yaml: --profile prod: no such profile; known: local, staging")
    }

    @Test func relativeFilesAreReadFromTheConfigFilesFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("pem".utf8).write(to: folder.appendingPathComponent("ca.pem"))
        let file = try ConfigFile(
            yaml: "profiles:\n  p:\n    cacert: ca.pem\n    jwks: https://example.com/jwks\n",
            path: folder.path + "/config.yaml")
        let resolved = try file.resolve(profile: "p", environment: [:])
        #expect(resolved.text(.cacert) == folder.path + "/ca.pem")
        #expect(resolved.text(.jwks) == "https://example.com/jwks")
    }

    // MARK: keys

    @Test func keysSwappedByTwoRemapsMakeTheTable() throws {
        let file = try parse(Self.sample)
        #expect(file.keys.command(for: .character("R"), fleet: false) == .refreshFocused)
        #expect(file.keys.command(for: .character("r"), fleet: false) == .refreshBoth)
        #expect(file.keys.command(for: .character("b"), fleet: false) == .refreshBoth)
        #expect(file.remaps.map(\.line) == [19, 20])
    }

    @Test func anEmptyFileConfiguresNothing() throws {
        let resolved = try parse("").resolve(profile: nil, environment: [:])
        #expect(resolved.values.isEmpty && resolved.keys == .standard)
    }
}

/// docs/config.md's example file is a working config: it is what users copy.
@Suite(.timeLimit(.minutes(15))) struct ReadmeExampleTests {
    @Test func theReadmeExampleParsesAndResolves() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/config.md"),
            encoding: .utf8)
        let start = try #require(readme.range(of: "```yaml\ndefault-profile:"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let yaml = String(readme[readme.index(start.lowerBound, offsetBy: 8)..<end.lowerBound])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data().write(to: folder.appendingPathComponent("staging-ca.pem"))
        let file = try ConfigFile(yaml: yaml, path: folder.path + "/config.yaml")
        #expect(file.profiles.map(\.name) == ["local", "staging", "real-fleet-engine"])
        let real = try file.resolve(profile: "real-fleet-engine", environment: [:])
        #expect(
            real.text(.fleetEngine) == "https://fleetengine.googleapis.com"
                && real.text(.providerLogic) == "objc-sample")
        let staging = try file.resolve(profile: "staging", environment: ["STAGING_API_KEY": "a", "STAGING_TOKEN": "b"])
        #expect(staging.text(.timeout) == "5" && staging.text(.refreshMargin) == "120")
        #expect(file.keys.command(for: .character("h"), fleet: false) == .help)
    }
}
