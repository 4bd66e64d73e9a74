import Foundation
import Spawning

/// Debian's squid as the user's forward proxy for the transport bench: it keeps client
/// connections alive as squid does by default, so tokendash's pooled absolute-form requests
/// (`ProxyConnectionPool`) are measured against what a user's proxy does, beside a CONNECT tunnel
/// through the same squid. Its cache is off (every GET reaches the responder) and CONNECT is
/// allowed to any port, since the responder is not on 443; nothing else differs from its defaults.
final class SquidProcess: Sendable {
    static let executable = ["/usr/sbin/squid", "/usr/bin/squid"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    let pid: pid_t
    let port: Int
    private let folder: URL

    /// squid listening on a free loopback port; nil when squid is not installed.
    init?() throws {
        guard let executable = Self.executable else { return nil }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-bench-squid-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Started as root, squid works as the `proxy` user: its pid file and log go here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        let port = try LoopbackDaemon.freePort()
        let config = folder.appendingPathComponent("squid.conf")
        try Data(Self.configuration(port: port, folder: folder.path).utf8).write(to: config)
        // -N: in the foreground, so stopping it ends it.
        pid = try ChildProcess.spawn(
            [executable, "-N", "-f", config.path], stdin: .devNull, stdout: .devNull,
            stderr: .file(folder.appendingPathComponent("stderr.log").path))
        self.port = port
        self.folder = folder
        do {
            try LoopbackDaemon.waitUntilListening(port, pid: pid, seconds: 20)
        } catch {
            let log = (try? String(contentsOf: folder.appendingPathComponent("cache.log"), encoding: .utf8)) ?? ""
            stop()
            throw MintBenchmark.BenchmarkError("squid did not start: \(log.split(separator: "\n").last ?? "no log")")
        }
    }

    static func configuration(port: Int, folder: String) -> String {
        """
        http_port 127.0.0.1:\(port)
        acl bench src 127.0.0.1/32
        http_access allow bench
        http_access deny all
        cache deny all
        access_log none
        cache_log \(folder)/cache.log
        pid_filename \(folder)/squid.pid
        coredump_dir \(folder)
        visible_hostname tokendash-bench
        shutdown_lifetime 0 seconds

        """
    }

    func stop() {
        kill(pid, SIGTERM)
        _ = ChildProcess.waitHere(pid)
        try? FileManager.default.removeItem(at: folder)
    }
}
