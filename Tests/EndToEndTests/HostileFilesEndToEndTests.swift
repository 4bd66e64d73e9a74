import Foundation
import Testing

/// The hostile inputs of Tests/Hostile (listed in TESTING.md, "Hostile files"), each given to the
/// real binary where a user would give it: one line naming the file (and line), exit 2, well within
/// a second. Before, six of them hung for good (an alias bomb used as a key) or crashed (numbers past
/// `Int`).
@Suite(.serialized, .timeLimit(.minutes(15))) struct HostileFilesEndToEndTests {
    static let folder = BinaryRunner.packageRoot.appendingPathComponent("Tests/Hostile")

    static func files(_ prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix(prefix) }
            .sorted()
    }

    /// Runs `arguments`; expects exit 2 and exactly one line on stderr, starting with `starts`,
    /// after under 3 s of CPU. CPU, not wall time: the hangs this guards against (Yams hashing
    /// 9^9 nodes) burned CPU for minutes until killed, while a full test run on two cores stretched
    /// a 0.2 s refusal to 1.7 s of wall time. Beside four CPU hogs the same refusal took 1.0 s of
    /// CPU (a core shared five ways runs slower), so the bound is 3 s. A hang is ended by the
    /// suite's time limit.
    func refused(_ arguments: [String], starts: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
    {
        let began = Date()
        let (result, cpu) = try await BinaryRunner.runCountingCPU(arguments)
        let wall = Date().timeIntervalSince(began)
        #expect(result.status == 2, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix(starts), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(cpu < 3, "\(arguments) used \(cpu) s of CPU (\(wall) s of wall time)", sourceLocation: sourceLocation)
    }

    @Test(arguments: files("config-"))
    func aHostileConfigFileIsOneLineEverywhereItIsRead(_ name: String) async throws {
        let path = Self.folder.appendingPathComponent(name).path
        try await refused(["config", "check", "--config", path], starts: "tokendash config check: \(path):")
        try await refused(["watch", "--config", path, "--duration", "5"], starts: "tokendash watch: \(path):")
        // The dashboard reads the file before the terminal: no terminal is needed to see it refused.
        try await refused(["--config", path], starts: "tokendash: \(path):")
    }

    @Test(arguments: files("scenario-"))
    func aHostileScenarioIsOneLineInCheckAndInTheDashboard(_ name: String) async throws {
        let path = Self.folder.appendingPathComponent(name).path
        try await refused(["scenario", "check", path], starts: "tokendash: \(path):")
        try await refused(["--scenario", path], starts: "tokendash: \(path):")
    }

    @Test(arguments: files("theme-"))
    func aHostileThemeIsOneLineBeforeTheScreen(_ name: String) async throws {
        // A theme is found by name in a folder: the file goes in one of its own.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hostile-themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: Self.folder.appendingPathComponent(name), to: folder.appendingPathComponent("hostile.yaml"))
        try await refused(
            ["--themes-dir", folder.path, "--theme", "hostile"], starts: "tokendash: \(folder.path)/hostile.yaml:")
    }

    @Test func aRecordingWithAnImpossibleStartIsOneLine() async throws {
        let path = Self.folder.appendingPathComponent("recording-start-1e300.jsonl").path
        try await refused(
            ["replay", path, "--to-watch"], starts: "tokendash: replay \(path):1: start 1e+300 is not a time between")
        try await refused(["replay", path], starts: "tokendash: replay \(path):1: start 1e+300")
    }

    @Test(arguments: ["recording-cache-hit-int-max.jsonl", "recording-t-minus-1e300.jsonl"])
    func aRecordingLinePastItsBoundsEndsTheReadingThereWithItsLine(_ name: String) async throws {
        // As for a garbled line: what came before is shown, and the line that was not is named.
        let path = Self.folder.appendingPathComponent(name).path
        let result = try await BinaryRunner.run(["replay", path, "--to-watch"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(result.stderr.hasPrefix("tokendash: \(path):3: "), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("showing the 1 action before it\n"), "\(result.stderr)")
    }

    @Test func serveOnAnAddressForTheNetworkNeedsAllowRemoteLikeMetrics() async throws {
        let result = try await BinaryRunner.run(["serve", "--host", "0.0.0.0"])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains("refusing to bind 0.0.0.0: it is not a loopback address; pass --allow-remote"),
            "\(result.stderr)")
    }

    @Test(arguments: [
        (["--refresh-margin", "1e300"], "--refresh-margin must be 0 seconds to 30 days"),
        (["--timeout", "inf"], "--timeout must be more than 0 seconds and at most 30 days"),
        (["--update-interval", "nan"], "--update-interval must be 0.05 seconds to 30 days"),
        (["watch", "--duration", "1e300"], "--duration must be more than 0 seconds and at most 30 days"),
        (["--lifetime", "99999999999999999999"], "--lifetime"),
        (["--trips", "9223372036854775807"], "--trips and --vehicles must be between 1 and 100000"),
    ])
    func aNumberFlagPastItsBoundIsExit64(_ arguments: [String], _ message: String) async throws {
        let result = try await BinaryRunner.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
