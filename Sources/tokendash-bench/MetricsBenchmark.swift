import Fleet
import Foundation
import HTTPTransport
import ProviderEvents
import ProviderVocabulary
import RouteServer
import TokenMetrics
import TokenReading
import TokenServer

/// `/metrics` for a 10,000-trip + 10,000-vehicle fleet: the answer's size and the time to render
/// it (the scrape-time gauges walk every member), rendered alone and fetched over loopback, against
/// the same for a fleet of one trip and one vehicle. Issue 15's bounds: under 64 KiB and 10 ms.
enum MetricsBenchmark {
    static let perKind = 10_000
    static let sizeBound = 64 * 1024
    static let timeBound = 0.010

    @Sendable static func run() async throws {
        let now = Date()
        let fleet = try metrics(perKind: perKind, now: now)
        let single = try metrics(perKind: 1, now: now)
        let fleetBytes = fleet.exposition(now: now).count
        let singleBytes = single.exposition(now: now).count
        let fleetRender = median(runs: 51) { _ = fleet.exposition(now: now) }
        let singleRender = median(runs: 51) { _ = single.exposition(now: now) }
        let fleetGet = try await overHTTP(fleet, runs: 51)
        let singleGet = try await overHTTP(single, runs: 51)
        MintBenchmark.printTable([
            ("", "20,000 providers  |  1 + 1 provider (baseline)"),
            ("/metrics size, bytes", "\(fleetBytes)  |  \(singleBytes)"),
            (
                "/metrics render (gauges + text), median of 51",
                "\(MintBenchmark.ms(fleetRender))  |  \(MintBenchmark.ms(singleRender))"
            ),
            (
                "GET /metrics over loopback, median of 51",
                "\(MintBenchmark.ms(fleetGet))  |  \(MintBenchmark.ms(singleGet))"
            ),
            ("within 64 KiB and 10 ms", fleetBytes < sizeBound && fleetRender < timeBound ? "yes" : "NO"),
        ])
        BenchReport.figure("metrics_bytes", value: Double(fleetBytes), unit: "bytes", baseline: Double(singleBytes))
        BenchReport.figure("metrics_render_ms", value: fleetRender * 1000, unit: "ms", baseline: singleRender * 1000)
        BenchReport.figure("metrics_get_ms", value: fleetGet * 1000, unit: "ms", baseline: singleGet * 1000)
        BenchReport.say(
            "No ID is a label, so the size does not grow with the fleet; the render walks every member for the state gauges."
        )
        if fleetBytes >= sizeBound {
            throw MintBenchmark.BenchmarkError("/metrics is \(fleetBytes) bytes for 20,000 providers, over 64 KiB")
        }
    }

    /// A collector that has seen a working day's mix of events for `perKind` members of each kind:
    /// every member fetched (expiries spread over the hour), one in 20 failing since (a 500 or a
    /// timeout), one in 50 refused by a rule, hits in batches, one in 100 switching its ID.
    static func metrics(perKind: Int, now: Date) throws -> ProviderMetrics {
        let kinds: [(ProviderKind, String)] = [(.consumer, "trip"), (.driver, "vehicle")]
        let members = Dictionary(
            uniqueKeysWithValues: kinds.map { kind, prefix in
                (kind, (0..<perKind).map { IDSequence.fleetID(prefix: prefix, index: $0, count: perKind) })
            })
        let metrics = ProviderMetrics(members: members)
        let jwt = try JWTInspector.decode(
            ProviderBenchmark.CountingBackend.jwt(
                id: "x", iat: Int(now.timeIntervalSince1970), exp: Int(now.timeIntervalSince1970) + 3600))
        for (kind, ids) in members {
            for (index, id) in ids.enumerated() {
                func record(_ event: ProviderEvent.Kind) {
                    metrics.record(ProviderEvent(time: now, provider: kind, id: id, kind: event))
                }
                record(.fetchStarted(reason: .noToken))
                let expiry = now.addingTimeInterval(60 + Double(index % 3540))
                var token = FetchedToken(
                    token: "x", id: id, expiresAt: expiry, receivedAt: now, jwt: jwt, clockSkew: 0.4)
                token.refreshAt = expiry.addingTimeInterval(-300)
                record(.fetched(token, latency: 0.001 * Double(index % 200)))
                record(.cacheHit(count: 1 + index % 40, expiresAt: expiry))
                if index % 20 == 0 {
                    record(.fetchStarted(reason: .refreshAhead))
                    record(
                        .fetchFailed(
                            index % 40 == 0 ? .httpStatus(code: 500, body: "") : .timeout(seconds: 10), latency: 0.5))
                }
                if index % 50 == 0 {
                    record(.fetchStarted(reason: .forced))
                    record(.fetchFailed(.rejected([RuleResult(.audience, .fail, "wrong audience")]), latency: 0.01))
                }
                if index % 100 == 0 { record(.idChanged(from: id, to: id + "-2")) }
            }
        }
        return metrics
    }

    /// Seconds for `body`, the median of `runs` after one warm-up.
    static func median(runs: Int, _ body: () -> Void) -> Double {
        body()
        let times = (0..<runs).map { _ in
            let start = ContinuousClock.now
            body()
            return seconds(ContinuousClock.now - start)
        }.sorted()
        return times[runs / 2]
    }

    /// The median time of a GET of `/metrics` from the route server `--metrics` uses, over loopback.
    static func overHTTP(_ metrics: ProviderMetrics, runs: Int) async throws -> Double {
        let server = NIORouteServer(routes: MetricsPage { metrics.exposition() }, host: "127.0.0.1", port: 0)
        let port = try await server.start()
        let transport = try HTTPClientTransport()
        guard let url = URL(string: "http://127.0.0.1:\(port)/metrics") else {
            throw MintBenchmark.BenchmarkError("no URL")
        }
        var times: [Double] = []
        do {
            for _ in 0...runs {
                let start = ContinuousClock.now
                let response = try await transport.send(TransportRequest(url: url, maxBodyBytes: 1 << 20))
                guard response.status == 200 else {
                    throw MintBenchmark.BenchmarkError("GET /metrics: HTTP \(response.status)")
                }
                times.append(seconds(ContinuousClock.now - start))
            }
        } catch {
            await transport.shutdown()
            await server.stop(gracePeriod: 0)
            throw error
        }
        await transport.shutdown()
        await server.stop(gracePeriod: 0)
        let measured = times.dropFirst().sorted()
        return measured[measured.count / 2]
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
