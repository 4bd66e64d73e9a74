import Foundation
import Spawning

/// One of the bench's real daemons (nginx, squid) on loopback: a folder of its own for its
/// configuration, pid file and logs, a free port (neither takes port 0), started and waited for
/// until it accepts; stopped and its folder removed when it does not, or when the bench is done.
final class LoopbackDaemon: Sendable {
    struct NotListening: Error {}

    let pid: pid_t
    let port: Int
    let folder: URL

    /// Starts `name` from `executable` with `arguments(configPath, folderPath)`, its configuration
    /// made by `configuration(port, folderPath)`, stderr to `stderrFile`; waits up to `seconds` for
    /// it to accept. When it does not, the last line of `logFile` says why. `openToAll`: the
    /// folder is writable by anyone, for a daemon that drops root for a user of its own.
    init(
        name: String, executable: String, configFile: String, stderrFile: String, logFile: String,
        openToAll: Bool = false, seconds: Double, configuration: (Int, String) -> String,
        arguments: (String, String) -> [String]
    ) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-bench-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if openToAll { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path) }
        let port = try Self.freePort()
        let config = folder.appendingPathComponent(configFile)
        try Data(configuration(port, folder.path).utf8).write(to: config)
        pid = try ChildProcess.spawn(
            [executable] + arguments(config.path, folder.path), stdin: .devNull, stdout: .devNull,
            stderr: .file(folder.appendingPathComponent(stderrFile).path))
        self.port = port
        self.folder = folder
        do {
            try Self.waitUntilListening(port, pid: pid, seconds: seconds)
        } catch {
            let log = (try? String(contentsOf: folder.appendingPathComponent(logFile), encoding: .utf8)) ?? ""
            stop()
            throw MintBenchmark.BenchmarkError("\(name) did not start: \(log.split(separator: "\n").last ?? "no log")")
        }
    }

    func stop() {
        kill(pid, SIGTERM)
        _ = ChildProcess.waitHere(pid)
        try? FileManager.default.removeItem(at: folder)
    }

    /// A port the kernel had free a moment ago.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard named else { throw MintBenchmark.BenchmarkError("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Up to `seconds` for `port` to accept, asked every 10 ms; throws when process `pid` exits
    /// first or the time runs out.
    private static func waitUntilListening(_ port: Int, pid: pid_t, seconds: Double) throws {
        for _ in 0..<Int(seconds * 100) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return }
            if waitpid(pid, nil, WNOHANG) == pid { break }
            usleep(10_000)
        }
        throw NotListening()
    }
}
