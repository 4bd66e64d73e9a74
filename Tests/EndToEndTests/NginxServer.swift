import Foundation

/// Debian's real nginx on loopback as a reverse proxy (`proxy_pass`) in front of one upstream,
/// with a config, prefix, pid file, temp folders and logs of its own in a temp folder, so it runs
/// beside (and without touching) a system nginx. In the foreground (`daemon off`), so stop() ends it.
final class NginxServer: Sendable {
    static let executable = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var missing: String? { executable == nil ? "nginx is not installed (apt-get install nginx; scripts/setup.sh installs it)" : nil }

    let port: Int
    let folder: URL
    private let process: BackgroundProcess

    var url: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, folder: URL, process: BackgroundProcess) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    /// The config the README's "Watching real devices" shows, on loopback ports, logs in `folder`.
    static func configuration(port: Int, upstream: String, folder: URL) -> String {
        let f = folder.path
        return """
            daemon off;
            worker_processes 1;
            # Only as root: the worker then stays root and can write this folder; others ignore it with a warning.
            user root;
            error_log stderr notice;
            pid \(f)/nginx.pid;
            events { worker_connections 256; }
            http {
                access_log \(f)/access.log;
                client_body_temp_path \(f)/body;
                proxy_temp_path \(f)/proxy;
                fastcgi_temp_path \(f)/fastcgi;
                uwsgi_temp_path \(f)/uwsgi;
                scgi_temp_path \(f)/scgi;
                upstream tokendash_tap {
                    server \(upstream);
                    keepalive 16;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location /token/ {
                        proxy_pass http://tokendash_tap;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $host;
                    }
                }
            }

            """
    }

    /// Runs `body` with an nginx of its own, stopped (and awaited) afterwards, failure or not.
    static func run<T>(upstream: String, _ body: (NginxServer) async throws -> T) async throws -> T {
        guard let executable else { throw SquidError(message: missing ?? "no nginx") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try BackgroundProcess.freePort()
        let file = folder.appendingPathComponent("nginx.conf")
        try configuration(port: port, upstream: upstream, folder: folder).write(to: file, atomically: true, encoding: .utf8)
        let process = try BackgroundProcess(URL(fileURLWithPath: executable), ["-p", folder.path, "-c", file.path], name: "nginx")
        let nginx = NginxServer(port: port, folder: folder, process: process)
        // Logged once the listening socket is bound and a worker takes connections.
        guard try await process.await(#"(start worker process \d+)"#) != nil else {
            let output = process.output
            await nginx.stop()
            throw SquidError(message: "nginx did not start: \(output.suffix(2_000))")
        }
        do {
            let result = try await body(nginx)
            await nginx.stop()
            return result
        } catch {
            await nginx.stop()
            throw error
        }
    }

    var accessLog: String { (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? "" }

    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
