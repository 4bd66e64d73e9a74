import Foundation
import Synchronization
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
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The variables the binary reads a proxy from.
    static let proxyVariables: Set<String> = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

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
    static func run(_ arguments: [String], executable: URL = binary, stdin: String? = nil,
                    environment extra: [String: String] = [:]) async throws -> Result {
        try await runCountingCPU(arguments, executable: executable, stdin: stdin, environment: extra).0
    }

    /// `run`, with the CPU time the child used (user and system, from wait4): a figure the rest of
    /// a full test run barely moves, where its wall time grew fivefold (a refusal of 0.2 s of CPU
    /// took 1.7 s).
    static func runCountingCPU(_ arguments: [String], executable: URL = binary, stdin: String? = nil,
                               environment extra: [String: String] = [:]) async throws -> (Result, cpu: TimeInterval) {
        let folder = FileManager.default.temporaryDirectory
        let name = "tokendash-run-\(UUID().uuidString)"
        let out = folder.appendingPathComponent(name + ".out"), err = folder.appendingPathComponent(name + ".err")
        let input = folder.appendingPathComponent(name + ".in")
        defer { for file in [out, err, input] { try? FileManager.default.removeItem(at: file) } }
        if let stdin { try Data(stdin.utf8).write(to: input) }
        let pid = try spawnCleanly([executable.path] + arguments, input: stdin == nil ? nil : input.path, output: out.path,
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
    static func runScript(_ arguments: [String]) async throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-e2e-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let pid = try spawnCleanly(arguments, output: log.path)
        let (status, _) = await exit(of: pid)
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// Waits for `pid` to exit: its exit code (128 + the signal for one killed) and the CPU time it
    /// used. The blocking wait4 runs on a thread of its own, holding none of the cooperative pool's
    /// two threads; cancelling the waiting task (the suite's time limit) kills the child, so a hang
    /// fails with the test's name instead of hanging the run.
    static func exit(of pid: pid_t) async -> (Int32, cpu: TimeInterval) {
        // Guards whether the child was reaped, so a late cancellation never signals a reused pid.
        let reaped = Mutex(false)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<(Int32, cpu: TimeInterval), Never>) in
                Thread {
                    var status: Int32 = 0
                    var usage = rusage()
                    var result: pid_t
                    repeat { result = wait4(pid, &status, 0, &usage) } while result == -1 && errno == EINTR
                    reaped.withLock { $0 = true }
                    func seconds(_ t: timeval) -> TimeInterval { TimeInterval(t.tv_sec) + TimeInterval(t.tv_usec) / 1e6 }
                    // WIFEXITED/WEXITSTATUS are macros Swift cannot import.
                    let exited = status & 0x7f == 0
                    done.resume(returning: (result == pid ? (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)) : -1,
                                            seconds(usage.ru_utime) + seconds(usage.ru_stime)))
                }.start()
            }
        } onCancel: {
            reaped.withLock { if !$0 { kill(pid, SIGKILL) } }
        }
    }

    /// Starts `arguments` (a full path first): stdin from `input` (else /dev/null), stdout and
    /// stderr to the file at `output` or to `outputDescriptor` (stderr to `errors` when given), no signal
    /// blocked, no descriptor but 0, 1 and 2; this process's environment unless one is given.
    static func spawnCleanly(_ arguments: [String], input: String? = nil, output: String? = nil, outputDescriptor: Int32? = nil,
                             errors: String? = nil, environment: [String: String]? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        if let outputDescriptor {
            posix_spawn_file_actions_adddup2(&actions, outputDescriptor, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        try closeInheritedDescriptors(&actions)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned: Int32
        if let environment {
            var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for p in envp { free(p) } }
            spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        } else {
            spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        }
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        return pid
    }

    /// Adds glibc's closefrom action (3 and up) to `actions`. Swift's Glibc module does not import
    /// it (it is a GNU extension), so it is looked up at run time.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { throw POSIXError(.ENOSYS) }
        let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
        let result = addCloseFrom(&actions, 3)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
    }
}
