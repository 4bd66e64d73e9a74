import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process, started and waited for without Foundation's `Process`: its `waitUntilExit`
/// was seen to wait forever for a child already gone (a full test run hung with every thread idle
/// and Foundation's process thread in its run loop). The tests run binaries through it, and
/// `ProviderHost` runs the customer's provider class in one. `spawn` starts it with no signal
/// blocked and no descriptor but 0-2 inherited; `exit(of:)` waits with a blocking wait4 on a
/// thread of its own, and its cancellation (the suite's time limit) kills the child.
public enum ChildProcess {
    /// Waits for `pid` to exit: its exit code (128 + the signal for one killed) and the CPU time it
    /// used. The blocking wait4 runs on a thread of its own, holding none of the cooperative pool's
    /// two threads; cancelling the waiting task (the suite's time limit) kills the child, so a hang
    /// fails with the test's name instead of hanging the run.
    public static func exit(of pid: pid_t) async -> (Int32, cpu: TimeInterval) {
        let ended = await ending(of: pid)
        return (ended.status, ended.cpu)
    }

    /// How a child ended: what `exit(of:)` says, and its peak resident set (the kernel's count, as
    /// `/usr/bin/time` reports it).
    public struct Ending: Sendable {
        public var status: Int32
        public var cpu: TimeInterval
        public var peakKiB: Int
    }

    /// `exit(of:)` with the child's peak memory.
    public static func ending(of pid: pid_t) async -> Ending {
        // Guards whether the child was reaped, so a late cancellation never signals a reused pid.
        let reaped = Mutex(false)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Ending, Never>) in
                Thread {
                    var status: Int32 = 0
                    var usage = rusage()
                    var result: pid_t
                    repeat { result = wait4(pid, &status, 0, &usage) } while result == -1 && errno == EINTR
                    reaped.withLock { $0 = true }
                    func seconds(_ t: timeval) -> TimeInterval {
                        TimeInterval(t.tv_sec) + TimeInterval(t.tv_usec) / 1e6
                    }
                    // WIFEXITED/WEXITSTATUS are macros Swift cannot import.
                    let exited = status & 0x7f == 0
                    done.resume(
                        returning: Ending(
                            status: result == pid ? (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)) : -1,
                            cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime), peakKiB: Int(usage.ru_maxrss)))
                }.start()
            }
        } onCancel: {
            reaped.withLock { if !$0 { kill(pid, SIGKILL) } }
        }
    }

    /// The first executable file `name` in PATH's folders, as a shell finds a command; nil when none is.
    public static func onPath(
        _ name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Waits for `pid` on this thread, for callers outside Swift concurrency (a benchmark's
    /// setup): its exit code, 128 + the signal for one killed, or -1 if it was not ours to wait for.
    public static func waitHere(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
        guard result == pid else { return -1 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Where one of the child's descriptors 0-2 comes from.
    public enum Stream: Sendable {
        case devNull
        /// A file opened for reading (stdin) or truncated for writing (stdout, stderr).
        case file(String)
        /// A descriptor of ours, such as a pipe's end.
        case descriptor(Int32)
        /// stderr only: wherever stdout goes.
        case stdout
    }

    /// Starts `arguments` (a full path first): stdin from `input` (else /dev/null), stdout and
    /// stderr to the file at `output` or to `outputDescriptor` (stderr to `errors` when given), no signal
    /// blocked, no descriptor but 0, 1 and 2; this process's environment unless one is given.
    public static func spawn(
        _ arguments: [String], input: String? = nil, output: String? = nil, outputDescriptor: Int32? = nil,
        errors: String? = nil, environment: [String: String]? = nil
    ) throws -> pid_t {
        try spawn(
            arguments, stdin: input.map(Stream.file) ?? .devNull,
            stdout: outputDescriptor.map(Stream.descriptor) ?? .file(output ?? "/dev/null"),
            stderr: errors.map(Stream.file) ?? .stdout, environment: environment)
    }

    /// Starts `arguments` (a full path first) with descriptors 0-2 as given, `more[i]` as
    /// descriptor 3 + i, and no other; no signal blocked; this process's environment unless one is
    /// given. With `ownProcessGroup`, the child leads a process group of its own, so whatever it
    /// starts can be signalled with it (`kill(-pid, …)`) and none of it is in tokendash's group.
    public static func spawn(
        _ arguments: [String], stdin: Stream, stdout: Stream, stderr: Stream, more: [Int32] = [],
        ownProcessGroup: Bool = false, environment: [String: String]? = nil
    ) throws -> pid_t {
        // Each extra descriptor is first copied above every target: a source that happens to be
        // 3 or 4 would otherwise be overwritten by an earlier dup2 before its own is made.
        let raised = more.map { fcntl($0, F_DUPFD_CLOEXEC, 16) }
        defer { for fd in raised where fd >= 0 { close(fd) } }
        guard !raised.contains(where: { $0 < 0 }) else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .devNull:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(
                    &actions, target, path, target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .stdout: posix_spawn_file_actions_adddup2(&actions, 1, target)
            }
        }
        for (index, fd) in raised.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(3 + index)) }
        try closeInheritedDescriptors(&actions, from: Int32(3 + raised.count))
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
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

    /// Adds glibc's closefrom action (`first` and up) to `actions`. Swift's Glibc module does not
    /// import it (it is a GNU extension), so it is looked up at run time.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t, from first: Int32) throws
    {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { throw POSIXError(.ENOSYS) }
        let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
        let result = addCloseFrom(&actions, first)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
    }
}
