import Foundation
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

    /// Runs to completion on a thread of its own, so the wait blocks none of the cooperative pool's
    /// threads: on a 2-core machine there are two, and loopback servers of other tests in this
    /// process need them meanwhile (their answers were seen to miss 5 s deadlines).
    static func run(_ arguments: [String], executable: URL = binary, stdin: String? = nil, environment: [String: String] = [:],
                    timeout: TimeInterval = 30) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    try runBlocking(arguments, executable: executable, stdin: stdin, environment: environment, timeout: timeout)
                })
            }.start()
        }
    }

    /// The variables the binary reads a proxy from.
    static let proxyVariables: Set<String> = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    /// Runs to completion, killing the process after `timeout` seconds so a hang fails the test instead of CI.
    static func runBlocking(_ arguments: [String], executable: URL = binary, stdin: String? = nil, environment: [String: String] = [:],
                            timeout: TimeInterval = 30) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        // A config file of the user running the tests must not change what the binary does, nor
        // their proxy variables (every test backend is on loopback); a test sets its own.
        process.environment = ProcessInfo.processInfo.environment.filter { !proxyVariables.contains($0.key) }
            .merging(["XDG_CONFIG_HOME": emptyConfigHome.path]) { $1 }
            .merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // Read before waiting: a full pipe would block the child forever.
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// Runs `arguments` with no signals blocked and default dispositions, output in a file.
    /// A Foundation `Process` child inherits the blocked mask of the Dispatch thread that spawns
    /// it; tmux started under that mask never sees SIGCHLD, so panes never die and kill-server
    /// hangs. A file instead of a pipe means a stray grandchild cannot keep the test waiting for EOF.
    /// The child keeps no descriptor but 0, 1 and 2: it would otherwise inherit the pipes of a
    /// process another test is starting at that moment, and hold them open for its whole minute
    /// (seen: `decode -` never saw the end of its stdin and was killed after 30 s).
    static func runWithCleanSignals(_ arguments: [String], timeout: TimeInterval) throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-e2e-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let pid = try spawnCleanly(arguments, output: log.path)
        return waitOut(pid, deadline: Date().addingTimeInterval(timeout), log: log, timeout: timeout)
    }

    /// `runWithCleanSignals` waited for on a thread of its own: a script runs for a minute, and
    /// holding one of the cooperative pool's two threads that long starves every other suite
    /// (a 1 s client timer was seen to fire after 30 s).
    static func runScript(_ arguments: [String], timeout: TimeInterval) async throws -> (Int32, String) {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<(Int32, String), any Error>) in
            Thread { done.resume(with: Swift.Result { try runWithCleanSignals(arguments, timeout: timeout) }) }.start()
        }
    }

    /// The binary run to its end, with the CPU time it used (user and system, from wait4): a
    /// figure the rest of a full test run barely moves, where its wall time grew fivefold (a
    /// refusal of 0.2 s of CPU took 1.7 s). On a thread of its own, like `run`; killed after `timeout`.
    static func runCountingCPU(_ arguments: [String], timeout: TimeInterval = 20) async throws -> (Result, cpu: TimeInterval) {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<(Result, cpu: TimeInterval), any Error>) in
            Thread {
                done.resume(with: Swift.Result {
                    let folder = FileManager.default.temporaryDirectory
                    let out = folder.appendingPathComponent("tokendash-cpu-\(UUID().uuidString).out")
                    let err = folder.appendingPathComponent("tokendash-cpu-\(UUID().uuidString).err")
                    defer { for file in [out, err] { try? FileManager.default.removeItem(at: file) } }
                    let environment = ProcessInfo.processInfo.environment.filter { !proxyVariables.contains($0.key) }
                        .merging(["XDG_CONFIG_HOME": emptyConfigHome.path]) { $1 }
                    let pid = try spawnCleanly([binary.path] + arguments, output: out.path, errors: err.path, environment: environment)
                    var status: Int32 = 0
                    var usage = rusage()
                    let deadline = Date().addingTimeInterval(timeout)
                    // Polled: wait4 has no timeout, and a hang must fail the test, not hang CI.
                    while wait4(pid, &status, WNOHANG, &usage) == 0 {
                        if Date() > deadline { kill(pid, SIGKILL) }
                        usleep(10_000)
                    }
                    func seconds(_ t: timeval) -> TimeInterval { TimeInterval(t.tv_sec) + TimeInterval(t.tv_usec) / 1e6 }
                    let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
                    let exited = status & 0x7f == 0
                    return (Result(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), stdout: read(out), stderr: read(err)),
                            cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime))
                })
            }.start()
        }
    }

    /// Starts `arguments` (a full path first) as `runWithCleanSignals` does: stdin from /dev/null,
    /// stdout and stderr to the file at `output` (stderr to `errors` when given), no signal
    /// blocked, no descriptor but 0, 1 and 2; this process's environment unless one is given.
    static func spawnCleanly(_ arguments: [String], output: String, errors: String? = nil,
                             environment: [String: String]? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
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

    /// Waits for `pid` until `deadline` (then kills it); its status and the output in `log`.
    private static func waitOut(_ pid: pid_t, deadline: Date, log: URL, timeout: TimeInterval) -> (Int32, String) {
        var status: Int32 = 0
        // Polled: waitpid has no timeout, and a hung script must fail the test, not hang CI.
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                return (-1, "timed out after \(Int(timeout)) s\n" + text)
            }
            usleep(50_000)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        // WIFEXITED/WEXITSTATUS are macros Swift cannot import.
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), text)
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
