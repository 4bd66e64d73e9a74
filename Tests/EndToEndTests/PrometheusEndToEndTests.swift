import Foundation
import ProviderVocabulary
import TestSupport
import Testing

/// `tokendash watch --metrics` scraped by a real Prometheus (Debian's `prometheus` package, which
/// scripts/setup.sh installs): the series arrive, and both endpoints pass `promtool check metrics`.
@Suite(.serialized, .timeLimit(.minutes(15))) struct PrometheusEndToEndTests {
    /// Both programs, or a failure that says how to get them: CI installs them, so a missing one
    /// must not pass as a skip.
    func tools() throws -> (prometheus: URL, promtool: URL) {
        let prometheus = BackgroundProcess.find("prometheus")
        let promtool = BackgroundProcess.find("promtool")
        guard let prometheus, let promtool else { throw MissingPrometheus() }
        return (prometheus, promtool)
    }

    func get(_ url: String) async throws -> String {
        let response = try await sharedTransport.send(
            TransportRequest(url: try #require(URL(string: url)), maxBodyBytes: 1 << 20))
        #expect(response.status == 200, "GET \(url)")
        return String(decoding: response.body, as: UTF8.self)
    }

    /// One instant query's samples as `labels -> value`.
    func query(_ base: String, _ promQL: String) async throws -> [[String: String]: Double] {
        let encoded = try #require(promQL.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let body = try await get("\(base)/api/v1/query?query=\(encoded)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let result = (json["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
        return result.reduce(into: [:]) { samples, sample in
            let labels = sample["metric"] as? [String: String] ?? [:]
            if let value = (sample["value"] as? [Any])?.last as? String { samples[labels] = Double(value) }
        }
    }

    struct MissingPrometheus: Error, CustomStringConvertible {
        var description: String {
            "prometheus and promtool are not installed: `apt-get install prometheus` (scripts/setup.sh does it)"
        }
    }

    @Test func prometheusScrapesWatchAndTheEmbeddedServer() async throws {
        let (prometheusBinary, promtool) = try tools()
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                // An hour, stopped by the test: beside four CPU hogs Prometheus's first scrapes
                // came after a 120 s watch had already ended.
                "watch", "--metrics", "127.0.0.1:0", "--update-interval", "0.5",
                "--duration", "3600", "--events", "fetched",
            ], name: "watch")
        defer { Task { await watch.stop() } }
        let metrics = try #require(
            try await watch.await(#"metrics on http://(127\.0\.0\.1:\d+)/metrics"#), "watch: \(watch.output)")
        let server = try #require(
            try await watch.await(#"embedded token server on http://(127\.0\.0\.1:\d+)"#), "watch: \(watch.output)")

        // Both endpoints in the format Prometheus' own linter accepts.
        for target in [metrics, server] {
            let text = try await get("http://\(target)/metrics")
            let check = try await BinaryRunner.run(["check", "metrics"], executable: promtool, stdin: text)
            #expect(check.status == 0, "promtool check metrics on \(target): \(check.stdout)\(check.stderr)")
        }

        let prometheus = try await PrometheusFleet.start(
            binary: prometheusBinary, jobs: [("tokendash", [metrics]), ("tokendash-server", [server])])
        defer { Task { await prometheus.stop() } }

        // Wait for the scrapes that carry both providers' first requests (a second apart).
        let base = prometheus.base
        var requests: [[String: String]: Double] = [:]
        var up: [[String: String]: Double] = [:]
        // Prometheus has no way to say it scraped or to be asked to: its query API is polled at
        // half its scrape interval, until the suite's time limit.
        try await eventually(every: .milliseconds(500)) {
            requests = try await query(base, #"sum by (provider) (tokendash_requests_total{result="ok"})"#)
            up = try await query(base, "up")
            return requests.count == 2 && requests.values.allSatisfy { $0 > 0 } && up.count == 2
                && up.values.allSatisfy { $0 == 1 }
        }
        #expect((requests[["provider": "consumer"]] ?? 0) > 0, "\(requests)")
        #expect((requests[["provider": "driver"]] ?? 0) > 0, "\(requests)")
        #expect(up.count == 2 && up.values.allSatisfy { $0 == 1 }, "\(up)")
        let minted = try await query(base, "sum(tokendash_server_tokens_minted_total)")
        #expect((minted.values.first ?? 0) >= 2, "\(minted)")
        let held = try await query(base, #"sum(tokendash_providers{state="ok"})"#)
        #expect(held.values.first == 2, "\(held)")
        // Each SDK's first call to the embedded Fleet Engine came with its first token, in the same scrape.
        let calls = try await query(base, #"sum by (method) (tokendash_fleet_engine_calls_total{status="OK"})"#)
        #expect((calls[["method": "GetTrip"]] ?? 0) >= 1 && (calls[["method": "UpdateVehicle"]] ?? 0) >= 1, "\(calls)")
        // The paces reach Prometheus, one series a pacer (above zero: a pace has a floor).
        let paces = try await query(base, "tokendash_pace_calls_per_second")
        #expect(Set(paces.keys.compactMap { $0["pacer"] }) == ["ramp", "fleet_engine"], "\(paces)")
        #expect(paces.values.allSatisfy { $0 > 0 }, "\(paces)")
        await prometheus.stop()
        await watch.stop()
    }
}
