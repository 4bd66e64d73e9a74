import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A long-running program for an end-to-end test (a `tokendash watch`, a Prometheus): started
/// through `BinaryRunner.spawnCleanly` (no other test's pipes inherited, no signal blocked, so it
/// keeps no one waiting and SIGTERM stops it), output to a file read back while waiting for a
/// line; stopped with SIGTERM, then SIGKILL if it lingers.
final class BackgroundProcess: Sendable {
    let name: String
    private let pid: pid_t
    private let log: URL
    // Guards whether the child has been reaped, so its pid is never waited for or signalled again.
    private let reaped = Mutex(false)

    init(_ executable: URL, _ arguments: [String], name: String) throws {
        self.name = name
        log = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-e2e-\(name)-\(UUID().uuidString).log")
        pid = try BinaryRunner.spawnCleanly([executable.path] + arguments, output: log.path)
    }

    /// Whether it still runs; reaps it once it has exited.
    var isRunning: Bool {
        reaped.withLock { reaped in
            guard !reaped else { return false }
            var status: Int32 = 0
            reaped = waitpid(pid, &status, WNOHANG) != 0
            return !reaped
        }
    }

    /// What it wrote so far, stdout and stderr together.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The first capture of `pattern` (a regular expression with one group) in its output, waiting
    /// up to `timeout` seconds; nil if it exited or the time ran out. The output is read once more
    /// after the deadline, so a test process paused past it (a loaded machine) still finds the line.
    func await(_ pattern: String, timeout: TimeInterval = 60) async throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let exited = !isRunning
            let text = output
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
               let range = Range(match.range(at: 1), in: text) {
                return String(text[range])
            }
            if exited || Date() >= deadline { return nil }
            // Polling a log file the child writes; there is nothing to wait on instead.
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() async {
        if isRunning { kill(pid, SIGTERM) }
        for _ in 0..<50 where isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        if isRunning { kill(pid, SIGKILL) }
        for _ in 0..<50 where isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        try? FileManager.default.removeItem(at: log)
    }

    /// The full path of `program` on PATH, or nil.
    static func find(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A loopback port free a moment ago (bound to 0 and released), for a program that needs it given.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
