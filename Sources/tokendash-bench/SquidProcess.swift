import Foundation

/// Debian's squid as the user's forward proxy for the transport bench: it keeps client
/// connections alive as squid does by default, so tokendash's pooled absolute-form requests
/// (`ProxyConnectionPool`) are measured against what a user's proxy does, beside a CONNECT tunnel
/// through the same squid. Its cache is off (every GET reaches the responder) and CONNECT is
/// allowed to any port, since the responder is not on 443; nothing else differs from its defaults.
final class SquidProcess: Sendable {
    static let executable = ["/usr/sbin/squid", "/usr/bin/squid"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    private let daemon: LoopbackDaemon
    var port: Int { daemon.port }

    /// squid listening on a free loopback port; nil when squid is not installed.
    init?() throws {
        guard let executable = Self.executable else { return nil }
        // Started as root, squid works as the `proxy` user: its pid file and log go in a folder
        // open to it. -N: in the foreground, so stopping it ends it.
        daemon = try LoopbackDaemon(
            name: "squid", executable: executable, configFile: "squid.conf", stderrFile: "stderr.log",
            logFile: "cache.log", openToAll: true, seconds: 20, configuration: Self.configuration,
            arguments: { config, _ in ["-N", "-f", config] })
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

    func stop() { daemon.stop() }
}
