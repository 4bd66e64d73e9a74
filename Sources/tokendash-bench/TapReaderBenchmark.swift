import Foundation
import ProviderVocabulary
import RouteServer
import TapForwarding
import TapReading

/// `tap-reader`: the tap's reading alone, in this process, so a change to it shows apart from the
/// forwarding's noise: the `tap` section's answers (the same upstream's body, a new ID each, as
/// there) read, recorded in the ledger and counted in metrics by one `TapAnalysis`, CPU seconds
/// per exchange. Its baseline, in the same run, is the least any reader does, with Foundation
/// alone: the body and the JWT's payload parsed by `JSONSerialization`, the payload's base64 by `Data`.
enum TapReaderBenchmark {
    static let exchanges = 40_000
    static let rounds = 5

    static func run() async throws {
        let routes = UnsignedTokenRoutes()
        var made: [TapExchange] = []
        made.reserveCapacity(exchanges)
        for n in 0..<exchanges {
            let kind = n.isMultiple(of: 2) ? ProviderKind.consumer : .driver
            let target = "/token/\(kind.rawValue)/bench-\(n % 8)-\(n)"
            let answer = await routes.respond(to: RouteRequest(method: "GET", path: target))
            made.append(
                TapExchange(
                    method: "GET", target: target, status: answer.status,
                    headers: ["content-type": "application/json", "content-length": "\(answer.body.count)"],
                    body: answer.body, latency: 0.0005, time: Date()))
        }
        var reads: [Double] = []
        var baselines: [Double] = []
        for _ in 0..<rounds {
            baselines.append(try baseline(made))
            reads.append(await read(made))
        }
        let read = reads.sorted()[rounds / 2]
        let floor = baselines.sorted()[rounds / 2]
        BenchReport.say(
            String(
                format:
                    "reading %d exchanges, a new ID each: %.2f µs CPU each (median of %d); JSONSerialization of body and payload: %.2f µs (%.2fx)",
                exchanges, read, rounds, floor, read / floor))
        BenchReport.figure("tap_reader_cpu_per_exchange_us", value: read, unit: "us", baseline: floor)
    }

    /// CPU µs per exchange for one `TapAnalysis` reading all of `made` on a thread of its own.
    static func read(_ made: [TapExchange]) async -> Double {
        let metrics = TapMetrics()
        let analysis = TapAnalysis(
            reader: ExchangeReader(), churnLimit: 4, sinks: [metrics.record], giveWay: {},
            queueBound: made.count + 1)
        for exchange in made { analysis.submit(exchange) }
        analysis.finish()
        let before = MintBenchmark.cpuSeconds()
        await analysis.run()
        let cpu = MintBenchmark.cpuSeconds() - before
        return cpu * 1e6 / Double(max(1, analysis.exchangeCount))
    }

    static func baseline(_ made: [TapExchange]) throws -> Double {
        let before = MintBenchmark.cpuSeconds()
        var found = 0
        for exchange in made {
            guard let body = try JSONSerialization.jsonObject(with: exchange.body) as? [String: Any],
                let jwt = body["jwt"] as? String
            else { continue }
            let parts = jwt.split(separator: ".")
            guard parts.count == 3 else { continue }
            var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
            guard let payload = Data(base64Encoded: base64),
                try JSONSerialization.jsonObject(with: payload) is [String: Any]
            else { continue }
            found += 1
        }
        guard found == made.count else { throw MintBenchmark.BenchmarkError("the baseline read \(found) tokens") }
        return (MintBenchmark.cpuSeconds() - before) * 1e6 / Double(made.count)
    }
}
