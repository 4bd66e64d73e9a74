import Foundation

/// Debian's real nginx on loopback as a reverse proxy (`proxy_pass`) in front of one upstream,
/// with a config, prefix, pid file, temp folders and logs of its own in a temp folder, so it runs
/// beside (and without touching) a system nginx. In the foreground (`daemon off`), so stopping it ends it.
enum NginxServer {
    static let executable = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static var missing: String? {
        executable == nil ? "nginx is not installed (apt-get install nginx; scripts/setup.sh installs it)" : nil
    }

    /// The `upstream` and `server` blocks docs/operators.md shows under "Behind nginx" (its first
    /// ```nginx block, read from the page, so the test runs what operators copy) or under
    /// "Several taps" (its second), on loopback ports: the taps' `server 127.0.0.1:8088;` (8089,
    /// 8090) become `upstreams`, `listen 443 ssl;` a plain loopback port. A page without that
    /// block gives nginx a directive it refuses, naming the page.
    static func snippet(port: Int, upstreams: [String], block: Int = 0) -> String {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/operators.md")
        let text = (try? String(contentsOf: page, encoding: .utf8)) ?? ""
        var searched = text.startIndex..<text.endIndex
        var found: String?
        for _ in 0...block {
            guard let open = text.range(of: "```nginx\n", range: searched),
                let close = text.range(of: "```", range: open.upperBound..<text.endIndex)
            else { return "docs_operators_md_has_no_nginx_block_\(block);" }
            found = String(text[open.upperBound..<close.lowerBound])
            searched = close.upperBound..<text.endIndex
        }
        guard let block = found else { return "docs_operators_md_has_no_nginx_block;" }
        var local = block.replacingOccurrences(of: "listen 443 ssl;", with: "listen 127.0.0.1:\(port);")
        for (index, upstream) in upstreams.enumerated() {
            let documented = "server 127.0.0.1:\(8088 + index);"
            guard local.contains(documented) else { return "docs_operators_md_nginx_block_changed_its_ports;" }
            local = local.replacingOccurrences(of: documented, with: "server \(upstream);")
        }
        guard local.contains("listen 127.0.0.1:\(port);") else {
            return "docs_operators_md_nginx_block_changed_its_ports;"
        }
        return local
    }

    /// That snippet in a whole nginx config, logs and temporary files in `folder`.
    static func configuration(port: Int, upstreams: [String], block: Int, folder: URL) -> String {
        let f = folder.path
        return """
            daemon off;
            worker_processes 1;
            # Only as root: the worker then stays root and can write this folder; others ignore it with a warning.
            user root;
            error_log stderr notice;
            pid \(f)/nginx.pid;
            events { worker_connections 1024; }
            http {
                access_log \(f)/access.log;
                client_body_temp_path \(f)/body;
                proxy_temp_path \(f)/proxy;
                fastcgi_temp_path \(f)/fastcgi;
                uwsgi_temp_path \(f)/uwsgi;
                scgi_temp_path \(f)/scgi;
            \(snippet(port: port, upstreams: upstreams, block: block))
            }

            """
    }

    /// Runs `body` with an nginx of its own in front of `upstream`, stopped afterwards, failure or not.
    static func run<T>(upstream: String, _ body: (TestDaemon) async throws -> T) async throws -> T {
        try await run(upstreams: [upstream], block: 0, body)
    }

    /// Runs `body` with an nginx of its own in front of `upstreams`, from the page's `block`-th snippet.
    static func run<T>(upstreams: [String], block: Int, _ body: (TestDaemon) async throws -> T) async throws -> T {
        let kind = TestDaemon.Kind(
            name: "nginx", executable: executable,
            configuration: { port, folder in
                configuration(port: port, upstreams: upstreams, block: block, folder: folder)
            },
            arguments: { file, folder in ["-p", folder.path, "-c", file] },
            // Logged once the listening socket is bound and a worker takes connections.
            ready: { _ in #"(start worker process \d+)"# })
        return try await TestDaemon.run(kind, body)
    }
}
