import FlyingFox
import Foundation
import HTTPTransport
import LoopbackProxy
import ProviderVocabulary
import ProxyKit
import TokenServer

/// CPU cost of a token fetch through each transport: the same loopback responder (a fixed token
/// JSON, no minting, so the transport dominates), N sequential then N concurrent GETs, process CPU
/// time from getrusage. The responder runs in this process, so its CPU is in both figures alike.
/// Then AsyncHTTPClient through a CONNECT proxy on loopback (LoopbackProxy, also in this process,
/// so the proxy's relaying is in the figure), beside the direct fetches of the same run.
enum TransportBenchmark {
    static let fetches = 3000
    static let concurrency = 8

    @Sendable static func run() async throws {
        let now = Int(Date().timeIntervalSince1970)
        // A realistic body: a Fleet-Engine-sized JWT (about 800 bytes) in the sample backend's JSON.
        let jwt =
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + String(repeating: "A", count: 400) + "."
            + String(repeating: "s", count: 342)
        let body = Data("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\((now + 3600) * 1000)}".utf8)
        // Nagle off, as the embedded server has it: otherwise every fetch waits 40 ms for a delayed ACK.
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 5, pool: NoDelaySocketPool(), logger: .disabled)
        await server.appendRoute("*") { _ in
            HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: body)
        }
        let serving = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw FleetAuthError.other("no port") }
        guard let url = URL(string: "http://127.0.0.1:\(port)/token/driver/vehicle-1") else {
            throw FleetAuthError.other("no URL")
        }

        let baseline = URLSessionTransport()
        let ahc = try HTTPClientTransport()
        let proxy = try await ForwardProxy.start(names: [:])
        // Absolute form, curl's way for http. This proxy ends each connection after one exchange
        // (it relays as for a tunnel); squid, below, keeps them.
        let (absolute, proxied) = try viaProxy(port: proxy.port)
        var rows: [(String, String)] = []
        for (name, transport) in [
            ("URLSession (baseline)", baseline as any TokenTransport), ("AsyncHTTPClient", ahc),
            ("AsyncHTTPClient via CONNECT proxy", proxied), ("absolute form via proxy", absolute),
        ] {
            _ = try await transport.send(TransportRequest(url: url))  // connection set up outside the measurement
            let sequential = try await measure(transport, url: url, concurrency: 1)
            let concurrent = try await measure(transport, url: url, concurrency: concurrency)
            rows.append(("\(name), sequential", sequential.text))
            rows.append(("\(name), \(concurrency) concurrent", concurrent.text))
        }
        await ahc.shutdown()
        await proxied.shutdown()
        await absolute.shutdown()
        await proxy.stop()
        do {
            rows += try await throughSquid(url, body: body)
        } catch {
            await server.stop(timeout: 1)
            serving.cancel()
            throw error
        }
        await server.stop(timeout: 1)
        serving.cancel()
        MintBenchmark.printTable(rows)
    }

    /// Plain http through squid, the user's proxy as most have it: absolute form on kept-alive
    /// connections (`ProxyConnectionPool`) beside a CONNECT tunnel through the same squid. squid
    /// and the backend (nginx answering `body` itself) are other processes, so these figures are
    /// tokendash's own CPU per fetch. With the backend in this process (`url`, when nginx is not
    /// installed) its CPU was two thirds of each figure, and more in absolute form than through
    /// the tunnel: squid adds its own headers to what the backend parses.
    static func throughSquid(_ url: URL, body: Data) async throws -> [(String, String)] {
        guard let squid = try SquidProcess() else {
            BenchReport.say("squid is not installed: its rows are skipped (apt-get install squid)")
            return []
        }
        defer { squid.stop() }
        let backend = try NginxProcess(answering: String(decoding: body, as: UTF8.self))
        defer { backend?.stop() }
        let backendName = backend == nil ? "the backend in this process" : "nginx as the backend"
        if backend == nil {
            BenchReport.say("nginx is not installed: squid's rows ask the backend in this process, whose CPU counts")
        }
        let url = backend.map { $0.baseURL.appendingPathComponent(url.path) } ?? url
        let (pooled, tunnel) = try viaProxy(port: squid.port)
        var rows: [(String, String)] = []
        var figures: [String: (absolute: Measured, tunnel: Measured)] = [:]
        do {
            for (label, concurrency) in [("sequential", 1), ("\(concurrency) concurrent", concurrency)] {
                // Each way warmed, then measured in turn twice, so a drift of the machine meets both.
                _ = try await pooled.send(TransportRequest(url: url))
                _ = try await tunnel.send(TransportRequest(url: url))
                var absolute = Measured.zero
                var tunnelled = Measured.zero
                for _ in 0..<2 {
                    tunnelled += try await measure(tunnel, url: url, concurrency: concurrency)
                    absolute += try await measure(pooled, url: url, concurrency: concurrency)
                }
                rows.append(("squid CONNECT tunnel (baseline), \(label), \(backendName)", tunnelled.text))
                let ratio = String(format: "  (%.2fx the tunnel's CPU)", absolute.cpuPerFetch / tunnelled.cpuPerFetch)
                rows.append(("squid absolute form, kept alive, \(label)", absolute.text + ratio))
                figures[label] = (absolute, tunnelled)
            }
        } catch {
            await pooled.shutdown()
            await tunnel.shutdown()
            throw error
        }
        await pooled.shutdown()
        await tunnel.shutdown()
        for (label, key) in [
            ("sequential", "proxy_absolute_fetch_cpu_us"),
            ("\(concurrency) concurrent", "proxy_absolute_fetch_cpu_concurrent_us"),
        ] {
            guard let pair = figures[label] else { continue }
            BenchReport.figure(
                key, value: pair.absolute.cpuPerFetch * 1e6, unit: "us", baseline: pair.tunnel.cpuPerFetch * 1e6)
        }
        return rows
    }

    /// Two transports through the loopback proxy at `port`: plain http in absolute form, and
    /// plain http through a CONNECT tunnel.
    static func viaProxy(port: Int) throws -> (absolute: HTTPClientTransport, tunnel: HTTPClientTransport) {
        let settings = ProxySettings.single(
            ProxyServer(host: "127.0.0.1", port: port), environment: [:], source: "bench")
        var tunnelling = settings
        tunnelling.tunnelsHTTP = true
        return (try HTTPClientTransport(proxy: settings), try HTTPClientTransport(proxy: tunnelling))
    }

    /// CPU and wall seconds for a number of fetches; adds up over runs.
    struct Measured {
        var cpu: Double
        var wall: Double
        var fetches: Int

        static let zero = Measured(cpu: 0, wall: 0, fetches: 0)
        var cpuPerFetch: Double { fetches > 0 ? cpu / Double(fetches) : 0 }
        /// "fetches per CPU-second, fetches per wall second".
        var text: String {
            String(
                format: "%6.0f fetches/CPU-s  %6.0f fetches/s  (%.2f CPU-s, %.2f s for %d)",
                Double(fetches) / cpu, Double(fetches) / wall, cpu, wall, fetches)
        }

        static func += (a: inout Measured, b: Measured) {
            a = Measured(cpu: a.cpu + b.cpu, wall: a.wall + b.wall, fetches: a.fetches + b.fetches)
        }
    }

    /// `fetches` GETs spread over `concurrency` tasks.
    static func measure(_ transport: any TokenTransport, url: URL, concurrency: Int) async throws -> Measured {
        let cpu0 = MintBenchmark.cpuSeconds()
        let wall0 = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    for _ in 0..<(fetches / concurrency) {
                        let response = try await transport.send(TransportRequest(url: url))
                        guard response.status == 200 else {
                            throw FleetAuthError.httpStatus(code: response.status, body: "")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let cpu = MintBenchmark.cpuSeconds() - cpu0
        let wall = ContinuousClock.now - wall0
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        return Measured(cpu: cpu, wall: wallSeconds, fetches: fetches)
    }
}
