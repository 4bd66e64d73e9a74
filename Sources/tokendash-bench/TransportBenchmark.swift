import FleetAuth
import FlyingFox
import Foundation
import HTTPTransport
import LoopbackProxy
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
        let through = ProxySettings.single(
            ProxyServer(host: "127.0.0.1", port: proxy.port), environment: [:], source: "bench")
        // Absolute form, curl's way for http: one connection to the proxy per request.
        let absolute = try HTTPClientTransport(proxy: through)
        var tunnelled = through
        tunnelled.tunnelsHTTP = true
        let proxied = try HTTPClientTransport(proxy: tunnelled)
        var rows: [(String, String)] = []
        for (name, transport) in [
            ("URLSession (baseline)", baseline as any TokenTransport), ("AsyncHTTPClient", ahc),
            ("AsyncHTTPClient via CONNECT proxy", proxied), ("absolute form via proxy", absolute),
        ] {
            _ = try await transport.send(TransportRequest(url: url))  // connection set up outside the measurement
            let sequential = try await measure(transport, url: url, concurrency: 1)
            let concurrent = try await measure(transport, url: url, concurrency: concurrency)
            rows.append(("\(name), sequential", sequential))
            rows.append(("\(name), \(concurrency) concurrent", concurrent))
        }
        await ahc.shutdown()
        await proxied.shutdown()
        await absolute.shutdown()
        await proxy.stop()
        await server.stop(timeout: 1)
        serving.cancel()
        MintBenchmark.printTable(rows)
    }

    /// `fetches` GETs spread over `concurrency` tasks; "fetches per CPU-second, fetches per wall second".
    static func measure(_ transport: any TokenTransport, url: URL, concurrency: Int) async throws -> String {
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
        return String(
            format: "%6.0f fetches/CPU-s  %6.0f fetches/s  (%.2f CPU-s, %.2f s for %d)",
            Double(fetches) / cpu, Double(fetches) / wallSeconds, cpu, wallSeconds, fetches)
    }
}
