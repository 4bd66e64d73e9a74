import Foundation

/// Debian's real squid on loopback, with its stock configuration (`/etc/squid/squid.conf`) and
/// these changes only: it listens on 127.0.0.1 at a free port, and its pid file, logs and core
/// dumps go to a folder of its own, so it runs beside (and without the rights of) the system's.
/// Stock means `http_access deny CONNECT !SSL_ports` (443 only) and loopback clients allowed;
/// Debian 12 leaves `deny to_localhost` commented out, so squid reaches 127.0.0.1 backends.
/// Its access log proves each route: `GET http://…` for absolute form, `CONNECT host:port` for a tunnel.
enum SquidProxy {
    static let executable = ["/usr/sbin/squid", "/usr/bin/squid"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let stockConfig = "/etc/squid/squid.conf"
    /// Why the squid tests cannot run here, or nil when they can.
    static var missing: String? {
        guard executable != nil, FileManager.default.isReadableFile(atPath: stockConfig) else {
            return "squid is not installed (apt-get install squid; scripts/setup.sh installs it)"
        }
        return nil
    }

    static let kind = TestDaemon.Kind(
        name: "squid", executable: executable, folderOpenToAll: true,
        configuration: { port, folder in
            try configuration(try String(contentsOfFile: stockConfig, encoding: .utf8), port: port, folder: folder)
        },
        // -N: in the foreground, so stopping it ends it; -d 1: its cache.log on stderr too.
        arguments: { file, _ in ["-N", "-d", "1", "-f", file] },
        ready: { port in #"(Accepting HTTP Socket connections at [^\n]*127\.0\.0\.1:\#(port))"# })

    /// Runs `body` with a squid of its own, stopped (and awaited) afterwards, failure or not.
    static func run<T>(_ body: (TestDaemon) async throws -> T) async throws -> T {
        try await TestDaemon.run(kind, body)
    }

    /// The stock text with its port and folders changed; fails if the stock file no longer
    /// has the line this relies on (a squid whose default moved would test something else).
    static func configuration(_ stock: String, port: Int, folder: URL) throws -> String {
        var lines = stock.components(separatedBy: "\n")
        guard let listen = lines.firstIndex(where: { $0.hasPrefix("http_port ") }),
            lines.contains("http_access deny CONNECT !SSL_ports")
        else {
            throw TestDaemonError(
                message:
                    "\(stockConfig) has no http_port line or no `http_access deny CONNECT !SSL_ports`: not Debian's stock config"
            )
        }
        lines[listen] = "http_port 127.0.0.1:\(port)"
        lines = lines.map { $0.hasPrefix("coredump_dir ") ? "coredump_dir \(folder.path)" : $0 }
        lines += [
            "pid_filename \(folder.path)/squid.pid",
            "access_log stdio:\(folder.path)/access.log",
            "cache_log \(folder.path)/cache.log",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
