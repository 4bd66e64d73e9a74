import Foundation

/// Debian's nginx as a reverse proxy in front of the tap bench's upstream, configured as the
/// operators' page shows it (`proxy_pass` to an upstream with `keepalive`, HTTP/1.1, the
/// `Connection` header cleared), so the tap is measured against what an operator would put there
/// instead. One process (`master_process off`): nginx's one worker and its CPU, read from /proc
/// as the proxies' are; its access log off, as the tap keeps none either.
final class NginxProcess: Sendable {
    static let executable = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    let baseURL: URL
    private let daemon: LoopbackDaemon
    var pid: pid_t { daemon.pid }

    /// nginx listening on a free loopback port in front of `upstream` (`127.0.0.1:PORT`); nil
    /// when nginx is not installed.
    convenience init?(upstream: String) throws {
        try self.init { Self.configuration(port: $0, upstream: upstream, folder: $1) }
    }

    /// nginx on a free loopback port answering every request with `body` (JSON, no `$`, `'` or
    /// `\`, which nginx's quoted text would read otherwise) itself: a backend whose CPU is out of
    /// the bench's process; nil when nginx is not installed.
    convenience init?(answering body: String) throws {
        guard !body.contains(where: { "$'\\".contains($0) }) else {
            throw MintBenchmark.BenchmarkError("nginx's answer cannot hold $, ' or \\")
        }
        try self.init { Self.configuration(port: $0, answering: body, folder: $1) }
    }

    /// nginx on a free loopback port with the configuration `configuration(port, folder)` makes.
    private init?(configuration: (Int, String) -> String) throws {
        guard let executable = Self.executable else { return nil }
        daemon = try LoopbackDaemon(
            name: "nginx", executable: executable, configFile: "nginx.conf", stderrFile: "error.log",
            logFile: "error.log", seconds: 5, configuration: configuration,
            arguments: { config, folder in ["-p", folder, "-c", config] })
        guard let url = URL(string: "http://127.0.0.1:\(daemon.port)") else {
            daemon.stop()
            throw MintBenchmark.BenchmarkError("no URL for port \(daemon.port)")
        }
        baseURL = url
    }

    static func configuration(port: Int, answering body: String, folder: String) -> String {
        configuration(
            folder: folder,
            http: """
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        default_type application/json;
                        return 200 '\(body)';
                    }
                }
                """)
    }

    static func configuration(port: Int, upstream: String, folder: String) -> String {
        configuration(
            folder: folder,
            http: """
                upstream tokendash_tap {
                    server \(upstream);
                    keepalive 16;
                    keepalive_requests 1000000;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://tokendash_tap;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $host;
                    }
                }
                """)
    }

    /// One process, its files in `folder`, no access log, `http`'s blocks inside the `http` block.
    private static func configuration(folder: String, http: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        user root;
        error_log stderr warn;
        pid \(folder)/nginx.pid;
        # Room for the tap section's 3,000 idle keep-alive clients and their upstream connections.
        events { worker_connections 8192; }
        http {
            access_log off;
            # nginx closes a keep-alive connection after 1,000 requests by default; the load's
            # connections would then count a failure each time, which no proxy's cost includes.
            keepalive_requests 1000000;
            client_body_temp_path \(folder)/body;
            proxy_temp_path \(folder)/proxy;
            fastcgi_temp_path \(folder)/fastcgi;
            uwsgi_temp_path \(folder)/uwsgi;
            scgi_temp_path \(folder)/scgi;
        \(http)
        }

        """
    }

    func cpuSeconds() throws -> Double { try ServerProcess.cpuSeconds(of: pid) }

    func stop() { daemon.stop() }
}
