import Foundation
import TestSupport
import Testing

/// A real Prometheus (Debian's) scraping `jobs` every second, with the shipped rules
/// (deploy/prometheus/tokendash.rules.yml) evaluated every second, its data in a folder of its own.
struct PrometheusFleet {
    let process: BackgroundProcess
    let base: String
    let folder: URL

    static func start(binary: URL? = nil, jobs: [(name: String, targets: [String])]) async throws -> PrometheusFleet {
        let binary = try #require(binary ?? BackgroundProcess.find("prometheus"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let rules = BinaryRunner.packageRoot.appendingPathComponent("deploy/prometheus/tokendash.rules.yml").path
        let scrapes = jobs.map { job in
            """
              - job_name: \(job.name)
                static_configs: [{targets: [\(job.targets.map { "\"\($0)\"" }.joined(separator: ", "))]}]
            """
        }
        let config = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files: ["\(rules)"]
            scrape_configs:
            \(scrapes.joined(separator: "\n"))
            """
        try config.write(to: folder.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
        let port = try BackgroundProcess.freePort()
        let process = try BackgroundProcess(
            binary,
            [
                "--config.file=\(folder.appendingPathComponent("prometheus.yml").path)",
                "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
                "--web.listen-address=127.0.0.1:\(port)",
            ], name: "prometheus")
        _ = try #require(
            try await process.await("(Server is ready to receive web requests)"), "prometheus: \(process.output)")
        return PrometheusFleet(process: process, base: "http://127.0.0.1:\(port)", folder: folder)
    }

    /// Polls `promQL` (one value) until it equals `value`: Prometheus cannot be asked to scrape,
    /// so its query API is polled at half its interval, until the suite's time limit.
    func eventually(_ promQL: String, equals value: Double) async throws -> Bool {
        try await TestSupport.eventually(every: .milliseconds(500)) {
            let result = try await PrometheusEndToEndTests().query(base, promQL)
            return result.values.first == value
        }
    }

    /// The summaries of `name`'s alerts, sorted, once `wanted` holds of them (each evaluation
    /// writes them anew, so they follow the series): its expression holds (pending; firing once
    /// its `for:` has passed, which deploy/prometheus/tokendash.rules.test.yml shows with promtool).
    func alerts(_ name: String, until wanted: @escaping ([String]) -> Bool) async throws -> [String] {
        var summaries: [String] = []
        _ = try await TestSupport.eventually(every: .milliseconds(500)) {
            let body = try await PrometheusEndToEndTests().get(base + "/api/v1/alerts")
            let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            let alerts = (json?["data"] as? [String: Any])?["alerts"] as? [[String: Any]] ?? []
            summaries = alerts.compactMap { alert in
                guard (alert["labels"] as? [String: String])?["alertname"] == name else { return nil }
                return (alert["annotations"] as? [String: String])?["summary"]
            }
            summaries.sort()
            return wanted(summaries)
        }
        return summaries
    }

    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
