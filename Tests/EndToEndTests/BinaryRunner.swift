import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The end-to-end tests' one process runner: the built `tokendash` binary as a user would run it
/// (or another program, such as python3), capturing stdout, stderr and the exit code; and a
/// script under clean signals for the tmux tests.
enum BinaryRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary sits beside the test bundle in the build folder.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tokendash")
    }

    /// A config folder with no tokendash/config.yaml in it, made once per test process.
    static let emptyConfigHome: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-e2e-config-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The variables the binary reads a proxy from.
    static let proxyVariables: Set<String> = [
        "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// The environment a run gets: this process's, without the user's proxy variables (every test
    /// backend is on loopback) and with a config folder holding no config file, so neither
    /// changes what the binary does; a test sets its own on top.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !proxyVariables.contains($0.key) }
            .merging(["XDG_CONFIG_HOME": emptyConfigHome.path]) { $1 }
            .merging(extra) { $1 }
    }

    /// Runs to completion, capturing stdout, stderr and the exit code. Not Foundation's `Process`:
    /// its `waitUntilExit` was seen elsewhere to wait forever for a child already gone, and one
    /// full run here hung with every thread idle and Foundation's process thread in its run loop.
    /// The child is spawned cleanly and waited for with a blocking wait4; a hang is ended by the
    /// suite's time limit, whose cancellation kills the child.
    static func run(
        _ arguments: [String], executable: URL = binary, stdin: String? = nil,
        environment extra: [String: String] = [:]
    ) async throws -> Result {
        try await runCountingCPU(arguments, executable: executable, stdin: stdin, environment: extra).0
    }

    /// `run`, with the CPU time the child used (user and system, from wait4): a figure the rest of
    /// a full test run barely moves, where its wall time grew fivefold (a refusal of 0.2 s of CPU
    /// took 1.7 s).
    static func runCountingCPU(
        _ arguments: [String], executable: URL = binary, stdin: String? = nil,
        environment extra: [String: String] = [:]
    ) async throws -> (Result, cpu: TimeInterval) {
        let folder = FileManager.default.temporaryDirectory
        let name = "tokendash-run-\(UUID().uuidString)"
        let out = folder.appendingPathComponent(name + ".out")
        let err = folder.appendingPathComponent(name + ".err")
        let input = folder.appendingPathComponent(name + ".in")
        defer { for file in [out, err, input] { try? FileManager.default.removeItem(at: file) } }
        if let stdin { try Data(stdin.utf8).write(to: input) }
        let pid = try spawnCleanly(
            [executable.path] + arguments, input: stdin == nil ? nil : input.path, output: out.path,
            errors: err.path, environment: environment(extra))
        let (status, cpu) = await exit(of: pid)
        let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        return (Result(status: status, stdout: read(out), stderr: read(err)), cpu)
    }

    /// Runs `arguments` with no signals blocked and default dispositions, output in a file (see
    /// `spawnCleanly`). A Foundation `Process` child inherits the blocked mask of the Dispatch
    /// thread that spawns it; tmux started under that mask never sees SIGCHLD, so panes never die
    /// and kill-server hangs. A file instead of a pipe means a stray grandchild cannot keep the
    /// test waiting for EOF.
    /// `scripts/NAME` run with bash on the binary under test, as each tmux script is: its status
    /// and output.
    static func runScript(named name: String) async throws -> (Int32, String) {
        let script = packageRoot.appendingPathComponent("scripts/\(name)").path
        return try await runScript(["/usr/bin/env", "bash", script, binary.path])
    }

    static func runScript(_ arguments: [String]) async throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-e2e-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let pid = try spawnCleanly(arguments, output: log.path)
        let (status, _) = await exit(of: pid)
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    static func exit(of pid: pid_t) async -> (Int32, cpu: TimeInterval) { await ChildProcess.exit(of: pid) }

    static func spawnCleanly(
        _ arguments: [String], input: String? = nil, output: String? = nil, outputDescriptor: Int32? = nil,
        errors: String? = nil, environment: [String: String]? = nil
    ) throws -> pid_t {
        try ChildProcess.spawn(
            arguments, input: input, output: output, outputDescriptor: outputDescriptor, errors: errors,
            environment: environment)
    }
}
