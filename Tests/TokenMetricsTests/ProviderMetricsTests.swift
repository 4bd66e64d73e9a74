import Fleet
import FleetEngineAPI
import Foundation
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing
import TokenMetrics
import TokenReading

/// Fake provider events in, a scrape's text out and read back: each event lands in its series,
/// the clock-dependent gauges follow the scrape's instant, and no ID reaches a label.
@Suite(.timeLimit(.minutes(15))) struct ProviderMetricsTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ offset: TimeInterval) -> Date { t0.addingTimeInterval(offset) }

    func event(
        _ id: String, _ kind: ProviderEvent.Kind, at offset: TimeInterval = 0, provider: ProviderKind = .consumer
    ) -> ProviderEvent {
        ProviderEvent(time: at(offset), provider: provider, id: id, kind: kind)
    }

    func token(_ id: String, expiresAt offset: TimeInterval, skew: TimeInterval? = nil) throws -> FetchedToken {
        let jwt = try JWTInspector.decode("eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjF9.c2ln")
        return FetchedToken(token: "x", id: id, expiresAt: at(offset), receivedAt: t0, jwt: jwt, clockSkew: skew)
    }

    func fetched(
        _ metrics: ProviderMetrics, _ id: String, expiresAt offset: TimeInterval, provider: ProviderKind = .consumer
    ) throws {
        metrics.record(event(id, .fetchStarted(reason: .noToken), provider: provider))
        metrics.record(event(id, .fetched(try token(id, expiresAt: offset), latency: 0.02), provider: provider))
    }

    @Test func eachEventLandsInItsSeries() throws {
        let metrics = ProviderMetrics(members: [.consumer: ["trip-1", "trip-2"], .driver: ["vehicle-1"]])
        metrics.record(event("trip-1", .fetched(try token("trip-1", expiresAt: 100, skew: -2.5), latency: 0.02)))
        metrics.record(event("trip-2", .fetchFailed(.httpStatus(code: 503, body: "", retryAfter: 3), latency: 0.3)))
        metrics.record(event("trip-2", .fetchFailed(.httpStatus(code: 403, body: ""), latency: 0.01)))
        metrics.record(event("trip-2", .fetchFailed(.timeout(seconds: 10), latency: 10)))
        metrics.record(
            event(
                "trip-2",
                .fetchFailed(
                    .rejected([
                        RuleResult(.audience, .fail, "wrong"), RuleResult(.issuedAt, .ok, "fine"),
                        RuleResult(.signature, .fail, "bad"),
                    ]), latency: 0.01)))
        // Batched hits count as many as they carry.
        metrics.record(event("trip-1", .cacheHit(count: 40, expiresAt: at(100))))
        metrics.record(event("trip-1", .cacheHit(count: 2, expiresAt: at(100))))
        metrics.record(event("trip-3", .idChanged(from: "trip-2", to: "trip-3")))
        // Abandoned by the provider: no result class.
        metrics.record(event("trip-1", .fetchFailed(.superseded(requested: "trip-1", current: "trip-3"), latency: 0)))
        metrics.record(
            event(
                "vehicle-1",
                .fetchFailed(.unreachable(url: "https://x", reason: "TLS: untrusted certificate"), latency: 0.1),
                provider: .driver))

        let scrape = ScrapeText(metrics.exposition(now: at(10)))
        #expect(scrape[#"tokendash_requests_total{provider="consumer",result="ok"}"#] == 1)
        #expect(scrape[#"tokendash_requests_total{provider="consumer",result="http_5xx"}"#] == 1)
        #expect(scrape[#"tokendash_requests_total{provider="consumer",result="http_4xx"}"#] == 1)
        #expect(scrape[#"tokendash_requests_total{provider="consumer",result="timeout"}"#] == 1)
        #expect(scrape[#"tokendash_requests_total{provider="consumer",result="rule_failed"}"#] == 1)
        #expect(scrape[#"tokendash_requests_total{provider="consumer",result="unreachable"}"#] == 0)
        #expect(scrape[#"tokendash_requests_total{provider="driver",result="tls"}"#] == 1)
        #expect(scrape[#"tokendash_requests_total{provider="driver",result="ok"}"#] == 0)
        #expect(scrape[#"tokendash_rule_failures_total{provider="consumer",rule="aud"}"#] == 1)
        #expect(scrape[#"tokendash_rule_failures_total{provider="consumer",rule="signature"}"#] == 1)
        #expect(scrape[#"tokendash_rule_failures_total{provider="consumer",rule="iat"}"#] == nil)
        #expect(scrape[#"tokendash_cache_hits_total{provider="consumer"}"#] == 42)
        #expect(scrape[#"tokendash_id_changes_total{provider="consumer"}"#] == 1)
        #expect(scrape[#"tokendash_clock_skew_seconds{provider="consumer"}"#] == -2.5)
        #expect(scrape[#"tokendash_clock_skew_seconds{provider="driver"}"#]?.isNaN == true)
        // Every request with a result is timed: 5 consumer ones, the 10 s timeout in the top bucket only.
        #expect(scrape[#"tokendash_fetch_duration_seconds_count{provider="consumer"}"#] == 5)
        #expect(scrape[#"tokendash_fetch_duration_seconds_bucket{le="0.025",provider="consumer"}"#] == 3)
        #expect(scrape[#"tokendash_fetch_duration_seconds_bucket{le="5.0",provider="consumer"}"#] == 4)
        #expect(scrape.types["tokendash_fetch_duration_seconds"] == "histogram")
        #expect(scrape.types["tokendash_requests_total"] == "counter")
        #expect(scrape.types["tokendash_providers"] == "gauge")
    }

    @Test func fleetEngineAnswersAreCountedByMethodAndStatusAndDisagreementsApart() {
        let metrics = ProviderMetrics(members: [.driver: ["vehicle-1"]])
        func answer(_ http: Int, _ status: String, rules: RuleLevel = .ok) -> ProviderEvent.Kind {
            .fleetEngineCall(
                FleetEngineAnswer(
                    method: .updateVehicle, resource: "providers/p/vehicles/vehicle-1", httpStatus: http,
                    status: status, message: "m", latency: 0.01, fingerprint: "f", rules: rules))
        }
        metrics.record(event("vehicle-1", answer(200, "OK"), provider: .driver))
        metrics.record(event("vehicle-1", answer(200, "OK"), provider: .driver))
        metrics.record(event("vehicle-1", answer(403, "PERMISSION_DENIED"), provider: .driver))
        // A backend's own status text makes no series of its own.
        metrics.record(event("vehicle-1", answer(418, "I_AM_A_TEAPOT: vehicle-1"), provider: .driver))
        let scrape = ScrapeText(metrics.exposition(now: at(10)))
        #expect(
            scrape[#"tokendash_fleet_engine_calls_total{method="UpdateVehicle",provider="driver",status="OK"}"#] == 2)
        #expect(
            scrape[
                #"tokendash_fleet_engine_calls_total{method="UpdateVehicle",provider="driver",status="PERMISSION_DENIED"}"#
            ] == 1)
        #expect(
            scrape[#"tokendash_fleet_engine_calls_total{method="UpdateVehicle",provider="driver",status="OTHER"}"#] == 1
        )
        #expect(scrape[#"tokendash_fleet_engine_verdict_disagreements_total{provider="driver"}"#] == 1)
    }

    /// The ramp's pace reaches Prometheus: its ceiling while answers are fast, half of it after an
    /// answer that says the backend is overloaded, and whether it is pacing anyone.
    @Test func thePaceIsTheScrapesInstant() throws {
        let pacing = FleetPacing(ramp: FleetRamp(duration: 10), total: 1000)
        let metrics = ProviderMetrics(members: [.consumer: ["trip-1"]], pacing: pacing)
        var scrape = ScrapeText(metrics.exposition(now: at(0)))
        #expect(scrape[#"tokendash_pace_calls_per_second{pacer="ramp"}"#] == 100)
        #expect(scrape[#"tokendash_pace_active{pacer="ramp"}"#] == 0)
        #expect(scrape[#"tokendash_pace_calls_per_second{pacer="fleet_engine"}"#] != nil)
        pacing.ramp.laneStarted()
        let ticket = pacing.ramp.begin(now: at(0))
        pacing.ramp.end(ticket, now: at(0.05), overloaded: true)
        _ = pacing.ramp.room(now: at(1.5))
        scrape = ScrapeText(metrics.exposition(now: at(2)))
        #expect(scrape[#"tokendash_pace_calls_per_second{pacer="ramp"}"#] == 50)
        #expect(scrape[#"tokendash_pace_active{pacer="ramp"}"#] == 1)
        // Without a fleet's pacing, no pace series.
        let plain = ScrapeText(ProviderMetrics(members: [.consumer: ["trip-1"]]).exposition(now: at(0)))
        #expect(plain[#"tokendash_pace_calls_per_second{pacer="ramp"}"#] == nil)
    }

    @Test func statesAndExpiryAreTheScrapesInstant() throws {
        let metrics = ProviderMetrics(members: [.consumer: ["trip-1", "trip-2", "trip-3"], .driver: ["vehicle-1"]])
        try fetched(metrics, "trip-1", expiresAt: 100)
        try fetched(metrics, "trip-2", expiresAt: 40)
        try fetched(metrics, "vehicle-1", expiresAt: 70, provider: .driver)
        metrics.record(event("trip-2", .fetchStarted(reason: .refreshAhead), at: 5))
        metrics.record(event("trip-2", .fetchFailed(.httpStatus(code: 500, body: ""), latency: 0.01), at: 5))

        var scrape = ScrapeText(metrics.exposition(now: at(10)))
        #expect(scrape[#"tokendash_providers{provider="consumer",state="ok"}"#] == 1)
        #expect(scrape[#"tokendash_providers{provider="consumer",state="stale"}"#] == 1)
        #expect(scrape[#"tokendash_providers{provider="consumer",state="no_token"}"#] == 1)
        #expect(scrape[#"tokendash_providers{provider="consumer",state="failing"}"#] == 0)
        #expect(scrape[#"tokendash_soonest_token_expiry_seconds{provider="consumer"}"#] == 30)
        #expect(scrape[#"tokendash_soonest_token_expiry_seconds{provider="driver"}"#] == 60)

        // Later, with no event in between: trip-2's token ran out, trip-1's is now the soonest.
        scrape = ScrapeText(metrics.exposition(now: at(50)))
        #expect(scrape[#"tokendash_providers{provider="consumer",state="ok"}"#] == 1)
        #expect(scrape[#"tokendash_providers{provider="consumer",state="stale"}"#] == 0)
        #expect(scrape[#"tokendash_providers{provider="consumer",state="failing"}"#] == 1)
        #expect(scrape[#"tokendash_soonest_token_expiry_seconds{provider="consumer"}"#] == 50)
        // Nobody holds a token: NaN, which no "expires within" alert matches.
        scrape = ScrapeText(metrics.exposition(now: at(200)))
        #expect(scrape[#"tokendash_soonest_token_expiry_seconds{provider="consumer"}"#]?.isNaN == true)
    }

    @Test func aLargeFleetMakesNoMoreSeriesThanOneSDK() throws {
        let ids = (0..<2000).map { IDSequence.fleetID(prefix: "trip", index: $0, count: 2000) }
        let fleet = ProviderMetrics(members: [.consumer: ids])
        let single = ProviderMetrics(members: [.consumer: ["trip-0001"]])
        for id in ids {
            try fetched(fleet, id, expiresAt: 100)
            fleet.record(event(id, .fetchFailed(.wrongID(claim: "tripid", expected: id, found: "x"), latency: 0.01)))
        }
        try fetched(single, "trip-0001", expiresAt: 100)
        let text = String(decoding: fleet.exposition(now: at(1)), as: UTF8.self)
        #expect(!text.contains("trip-"))
        #expect(ScrapeText(Array(text.utf8)).values.count == ScrapeText(single.exposition(now: at(1))).values.count)
        #expect(
            ScrapeText(Array(text.utf8))[#"tokendash_requests_total{provider="consumer",result="invalid_token"}"#]
                == 2000)
    }

    @Test func resultClassesOfEveryFailure() {
        let cases: [(FleetAuthError, RequestResult?)] = [
            (.httpStatus(code: 429, body: "", retryAfter: 5), .http4xx),
            (.httpStatus(code: 502, body: ""), .http5xx),
            (.unreachable(url: "http://x", reason: "connection refused"), .unreachable),
            (.unreachable(url: "https://x", reason: "TLS handshake failed: x"), .tls),
            (.notJSON("x"), .invalidToken),
            (.missingKey("jwt"), .invalidToken),
            (.alreadyExpired(expiredSecondsAgo: 3), .invalidToken),
            (.rejected([RuleResult(.audience, .fail, "x")]), .ruleFailed),
            (.cancelled, nil),
            (.backingOff(retryInSeconds: 2, lastError: "x"), nil),
        ]
        for (error, expected) in cases { #expect(RequestResult(error) == expected, "\(error)") }
    }

    @Test func consumesABroadcastersStream() async throws {
        let broadcaster = EventBroadcaster()
        let metrics = ProviderMetrics(members: [.driver: ["vehicle-1"]])
        let stream = broadcaster.subscribe()
        let collector = Task { await metrics.consume(stream) }
        broadcaster.publish(
            event("vehicle-1", .fetched(try token("vehicle-1", expiresAt: 100), latency: 0.01), provider: .driver))
        broadcaster.finish()
        await collector.cancellingValue
        #expect(
            ScrapeText(metrics.exposition(now: at(1)))[#"tokendash_requests_total{provider="driver",result="ok"}"#] == 1
        )
    }
}
