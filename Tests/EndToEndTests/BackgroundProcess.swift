import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A long-running program for an end-to-end test (a `tokendash watch`, a Prometheus): started
/// through `BinaryRunner.spawnCleanly` (no other test's pipes inherited, no signal blocked, so
/// SIGTERM stops it). Its stdout and stderr go into one pipe that a thread of its own drains, and
/// a test waits for a line by being woken at each chunk, never by polling; stopped with SIGTERM,
/// and killed if the waiting test is cancelled (its suite's time limit).
final class BackgroundProcess: Sendable {
    let name: String
    private let pid: pid_t
    private let exited: Task<Int32, Never>

    private struct Output {
        var data = Data()
        /// The pipe's end: every writer (the child, and any grandchild holding it) is gone.
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the reading thread and the waiting task share with this object (a Mutex cannot be
    /// captured by value).
    private final class Shared: Sendable {
        // Guards the output read so far and the tasks waiting for more; written by the reading thread.
        let output = Mutex(Output())
        // Guards whether the child has been waited for, so a stop after its exit signals no reused pid.
        let reaped = Mutex(false)
    }

    private let shared = Shared()

    /// `environment`: the child's whole environment; nil passes this process's on.
    init(_ executable: URL, _ arguments: [String], name: String, environment: [String: String]? = nil) throws {
        self.name = name
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        let (reading, writing) = (ends[0], ends[1])
        // Close-on-exec, so a child another test starts meanwhile does not hold the pipe open
        // (pipe2 is not imported; children of spawnCleanly close everything above 2 anyway).
        for end in [reading, writing] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let pid: pid_t
        do {
            pid = try BinaryRunner.spawnCleanly(
                [executable.path] + arguments, outputDescriptor: writing, environment: environment)
        } catch {
            close(reading)
            close(writing)
            throw error
        }
        close(writing)
        self.pid = pid
        let shared = shared
        exited = Task {
            let status = await BinaryRunner.exit(of: pid).0
            shared.reaped.withLock { $0 = true }
            return status
        }
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(reading, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                let waiters = shared.output.withLock { output in
                    if count > 0 { output.data.append(contentsOf: buffer[0..<count]) } else { output.ended = true }
                    defer { output.waiters = [] }
                    return output.waiters
                }
                for waiter in waiters { waiter.resume() }
                if count <= 0 { break }
            }
            close(reading)
        }.start()
    }

    /// What it wrote so far, stdout and stderr together.
    var output: String { shared.output.withLock { String(decoding: $0.data, as: UTF8.self) } }

    /// The first capture of `pattern` (a regular expression with one group) in its output, as soon
    /// as it is written; nil once the output has ended without it (the program exited).
    func await(_ pattern: String) async throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern)
        return try await awaitOutput { text in
            guard let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: 1), in: text)
            else { return nil }
            return String(text[range])
        }
    }

    /// Waits until `count` lines of its output hold every one of `parts`, as soon as they are
    /// written; false once the output has ended short of them (the program exited).
    func await(_ count: Int, linesWith parts: String...) async throws -> Bool {
        try await awaitOutput { text in
            text.split(separator: "\n").count { line in parts.allSatisfy { line.contains($0) } } >= count ? true : nil
        } ?? false
    }

    /// What `found` first makes of the output, tried each time it grows; nil once it has ended.
    private func awaitOutput<T>(_ found: (String) -> T?) async throws -> T? {
        var seen = -1
        while true {
            try Task.checkCancellation()
            let (text, ended, count) = shared.output.withLock {
                (String(decoding: $0.data, as: UTF8.self), $0.ended, $0.data.count)
            }
            if count != seen {
                seen = count
                if let value = found(text) { return value }
            }
            if ended { return nil }
            await more(than: count)
        }
    }

    /// Returns once the output has grown past `count` bytes or ended, or the task is cancelled.
    private func more(than count: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (woken: CheckedContinuation<Void, Never>) in
                let now = shared.output.withLock { output in
                    guard output.data.count == count, !output.ended, !Task.isCancelled else { return true }
                    output.waiters.append(woken)
                    return false
                }
                if now { woken.resume() }
            }
        } onCancel: {
            for waiter in shared.output.withLock({ output in
                defer { output.waiters = [] }
                return output.waiters
            }) { waiter.resume() }
        }
    }

    /// SIGINT to its process group, as Ctrl-C sends it: for a program started under `setsid`,
    /// whose group is its own, so the children it started go too.
    func interruptGroup() {
        if !shared.reaped.withLock({ $0 }) { kill(-pid, SIGINT) }
    }

    /// SIGTERM, then waits for the exit; a cancelled wait (the time limit) kills it.
    func stop() async {
        if !shared.reaped.withLock({ $0 }) { kill(pid, SIGTERM) }
        await withTaskCancellationHandler {
            _ = await exited.cancellingValue
        } onCancel: {
            kill(pid, SIGKILL)
        }
    }

    /// The full path of `program` on PATH, or nil.
    static func find(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A loopback port free a moment ago (bound to 0 and released), for a program that needs it given.
    static func freePort() throws -> Int { try LoopbackSocket.freePort() }
}
