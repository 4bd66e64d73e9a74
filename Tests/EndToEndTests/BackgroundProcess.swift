import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A long-running program for an end-to-end test (a `tokendash watch`, a Prometheus): output to
/// a file rather than a pipe (nobody reads it while it runs, and a full pipe would stall it),
/// read back while waiting for a line; stopped with SIGTERM, then SIGKILL if it lingers.
final class BackgroundProcess: Sendable {
    let name: String
    private let process: Process
    private let log: URL

    init(_ executable: URL, _ arguments: [String], name: String) throws {
        self.name = name
        log = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-e2e-\(name)-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? output.close()
        self.process = process
    }

    /// What it wrote so far, stdout and stderr together.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The first capture of `pattern` (a regular expression with one group) in its output, waiting
    /// up to `timeout` seconds; nil if it exited or the time ran out.
    func await(_ pattern: String, timeout: TimeInterval = 20) async throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = output
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
               let range = Range(match.range(at: 1), in: text) {
                return String(text[range])
            }
            if !process.isRunning { return nil }
            // Polling a log file the child writes; there is nothing to wait on instead.
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    func stop() async {
        if process.isRunning { process.terminate() }
        for _ in 0..<50 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        // A child spawned from a thread with signals blocked may not see SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
