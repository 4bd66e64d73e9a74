import Foundation

/// Debian's real squid on loopback, with its stock configuration (`/etc/squid/squid.conf`) and
/// these changes only: it listens on 127.0.0.1 at a free port, and its pid file, logs and core
/// dumps go to a folder of its own, so it runs beside (and without the rights of) the system's.
/// Stock means `http_access deny CONNECT !SSL_ports` (443 only) and loopback clients allowed;
/// Debian 12 leaves `deny to_localhost` commented out, so squid reaches 127.0.0.1 backends.
/// Its access log proves each route: `GET http://…` for absolute form, `CONNECT host:port` for a tunnel.
final class SquidProxy: Sendable {
    static let executable = ["/usr/sbin/squid", "/usr/bin/squid"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let stockConfig = "/etc/squid/squid.conf"
    /// Why the squid tests cannot run here, or nil when they can.
    static var missing: String? {
        guard executable != nil, FileManager.default.isReadableFile(atPath: stockConfig) else {
            return "squid is not installed (apt-get install squid; scripts/setup.sh installs it)"
        }
        return nil
    }

    let port: Int
    let folder: URL
    private let process: BackgroundProcess

    var url: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, folder: URL, process: BackgroundProcess) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    /// Runs `body` with a squid of its own, stopped (and awaited) afterwards, failure or not: a
    /// squid left running would outlive the test process.
    static func run<T>(_ body: (SquidProxy) async throws -> T) async throws -> T {
        let squid = try await start()
        do {
            let result = try await body(squid)
            await squid.stop()
            return result
        } catch {
            await squid.stop()
            throw error
        }
    }

    /// Starts squid and waits until it accepts connections.
    static func start() async throws -> SquidProxy {
        guard let executable else { throw SquidError(message: missing ?? "no squid") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-squid-\(UUID().uuidString)")
        // Squid started as root drops to the `proxy` user, which must still write its logs here.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        let port = try BackgroundProcess.freePort()
        let config = try configuration(try String(contentsOfFile: stockConfig, encoding: .utf8), port: port, folder: folder)
        let file = folder.appendingPathComponent("squid.conf")
        try config.write(to: file, atomically: true, encoding: .utf8)
        // -N: in the foreground, so stop() ends it; -d 1: its cache.log on stderr too.
        let process = try BackgroundProcess(URL(fileURLWithPath: executable), ["-N", "-d", "1", "-f", file.path], name: "squid")
        let squid = SquidProxy(port: port, folder: folder, process: process)
        guard try await process.await(#"(Accepting HTTP Socket connections at [^\n]*127\.0\.0\.1:\#(port))"#) != nil else {
            let output = process.output
            await squid.stop()
            throw SquidError(message: "squid did not start: \(output.suffix(2_000))")
        }
        return squid
    }

    /// The stock text with its port and folders changed; fails if the stock file no longer
    /// has the line this relies on (a squid whose default moved would test something else).
    static func configuration(_ stock: String, port: Int, folder: URL) throws -> String {
        var lines = stock.components(separatedBy: "\n")
        guard let listen = lines.firstIndex(where: { $0.hasPrefix("http_port ") }),
              lines.contains("http_access deny CONNECT !SSL_ports") else {
            throw SquidError(message: "\(stockConfig) has no http_port line or no `http_access deny CONNECT !SSL_ports`: not Debian's stock config")
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

    /// The access log so far.
    var accessLog: String { (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? "" }

    /// The first access-log line containing every one of `parts`, once squid has written it (it
    /// logs a tunnel only when it closes). No deadline of its own: the suite's time limit cancels
    /// the wait, and a cancelled sleep ends it with the test's name.
    func awaitLogLine(_ parts: String...) async throws -> String? {
        while true {
            let line = accessLog.split(separator: "\n").first { line in parts.allSatisfy { line.contains($0) } }
            if let line { return String(line) }
            // Polling the log squid writes; there is nothing to wait on instead.
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

struct SquidError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
