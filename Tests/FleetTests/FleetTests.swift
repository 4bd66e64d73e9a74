import EventLines
import Fleet
import FleetEngineAPI
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing
import TokenReading

@Suite(.timeLimit(.minutes(15))) struct IDSequenceTests {
    @Test func incrementsKeepingPadding() {
        #expect(IDSequence.next(after: "trip-0001") == "trip-0002")
        #expect(IDSequence.next(after: "vehicle-0099") == "vehicle-0100")
        #expect(IDSequence.next(after: "v9999") == "v10000")
        #expect(IDSequence.next(after: "alpha") == "alpha-2")
        #expect(IDSequence.fleetID(prefix: "trip", index: 41, count: 10_000) == "trip-00042")
        #expect(IDSequence.fleetID(prefix: "vehicle", index: 0, count: 3) == "vehicle-0001")
    }
}

@Suite(.timeLimit(.minutes(15))) struct PercentileTests {
    @Test func nearestRankIsAlwaysAMeasuredSample() {
        let values = (1...100).map(Double.init)
        #expect(Percentile.nearestRank(0.5, of: values) == 50)
        #expect(Percentile.nearestRank(0.99, of: values) == 99)
        #expect(Percentile.nearestRank(1, of: values) == 100)
        #expect(Percentile.nearestRank(0, of: values) == 1)
        #expect(Percentile.nearestRank(0.5, of: [1, 2, 3, 4]) == 2)
        #expect(Percentile.nearestRank(0.51, of: [1, 2, 3, 4]) == 3)
        #expect(Percentile.nearestRank(0.99, of: [7]) == 7)
        #expect(Percentile.nearestRank(0.5, of: []) == nil)
    }
}

@Suite(.timeLimit(.minutes(15))) struct FleetStatisticsTests {
    let t0 = TestTime.t0

    func event(_ kind: ProviderEvent.Kind, id: String = "trip-1", at offset: TimeInterval) -> ProviderEvent {
        ProviderEvent(time: t0.addingTimeInterval(offset), provider: .consumer, id: id, kind: kind)
    }

    func fetched(id: String, expiresIn: TimeInterval, latency: TimeInterval, at offset: TimeInterval) throws
        -> ProviderEvent
    {
        let now = Int(t0.timeIntervalSince1970 + offset)
        let jwt = try JWTInspector.decode("eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjF9.c2ln")
        let token = FetchedToken(
            token: "x", id: id, expiresAt: t0.addingTimeInterval(offset + expiresIn),
            receivedAt: Date(timeIntervalSince1970: TimeInterval(now)), jwt: jwt)
        return event(.fetched(token, latency: latency), id: id, at: offset)
    }

    @Test func countsRatesLatenciesAndTheRefreshMargin() throws {
        var stats = FleetStatistics()
        for i in 0..<20 { stats.record(event(.fetchStarted(reason: .noToken), id: "trip-\(i)", at: Double(i) * 0.5)) }
        for i in 0..<100 {
            var token = try fetched(id: "trip-\(i)", expiresIn: i < 30 ? 50 : 300, latency: Double(i + 1) / 1000, at: 9)
            if case .fetched(var t, let latency) = token.kind {
                // The provider's refresh point, a minute before expiry: the first 30 are past it.
                t.refreshAt = t.expiresAt.addingTimeInterval(-60)
                token.kind = .fetched(t, latency: latency)
            }
            stats.record(token)
        }
        for _ in 0..<60 { stats.record(event(.cacheHit(expiresAt: t0), at: 9)) }
        stats.record(event(.fetchFailed(.timeout(seconds: 10), latency: 10), at: 9))
        stats.record(event(.fetchFailed(.superseded(requested: "a", current: "b"), latency: 0), at: 9))
        let summary = stats.summary(now: t0.addingTimeInterval(9.5), providers: 100)
        #expect(summary.requestsPerSecond == 2.0, "20 requests over the 10 s since the first")
        #expect(summary.counters.requests == 20)
        #expect(summary.counters.hits == 60)
        #expect(summary.counters.errors == 1, "a superseded response is not a backend error")
        #expect(summary.window == summary.counters, "all of it within the minute")
        #expect(summary.counters.hitRatio == 0.75)
        #expect(summary.errorRate == 0.05)
        #expect(summary.p50LatencyMs == 50)
        #expect(summary.p99LatencyMs == 99)
        #expect(summary.inRefreshMargin == 30)
        #expect(summary.states[.ok] == 99 && summary.states[.stale] == 1, "trip-1 failed after its token came")
        // A minute later the window has emptied; the totals stay.
        let later = stats.summary(now: t0.addingTimeInterval(70), providers: 100)
        #expect(later.requestsPerSecond == 0)
        #expect(later.window == ProviderCounters())
        #expect(later.counters.requests == 20)
        #expect(later.p50LatencyMs == nil)
    }
}

@Suite(.timeLimit(.minutes(15))) struct EventLineEncoderTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000.25)

    @Test func printsOneJSONObjectPerEvent() throws {
        let jwt =
            "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjE4MDAwMDA2MDAsImF1dGhvcml6YXRpb24iOnsidHJpcGlkIjoidHJpcC0xIn19.c2lnbmF0dXJlLWxvbmc"
        let token = FetchedToken(
            token: jwt, id: "trip-1", expiresAt: Date(timeIntervalSince1970: 1_800_000_600),
            receivedAt: t0, jwt: try JWTInspector.decode(jwt))
        let encoder = EventLineEncoder()
        let line = encoder.encode(
            ProviderEvent(time: t0, provider: .consumer, id: "trip-1", kind: .fetched(token, latency: 0.0123)))
        #expect(
            line
                == #"{"time":"2027-01-15T08:00:00.250Z","provider":"consumer","id":"trip-1","event":"fetched","expires_at":"2027-01-15T08:10:00.000Z","latency_ms":12.3,"token":"eyJhbGciOiJS…Wxvbmc","fingerprint":"fa331d30","claims":{"authorization":{"tripid":"trip-1"},"exp":1800000600}}"#
        )
        #expect(!line.contains("c2lnbmF0dXJl"))
        let revealed = EventLineEncoder(reveal: true).encode(
            ProviderEvent(time: t0, provider: .consumer, id: "trip-1", kind: .fetched(token, latency: 0)))
        #expect(revealed.contains(jwt))
        #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
    }

    @Test func carriesEachEventsOwnFields() {
        let encoder = EventLineEncoder()
        func line(_ kind: ProviderEvent.Kind) -> String {
            encoder.encode(ProviderEvent(time: t0, provider: .driver, id: "v-2", kind: kind))
        }
        #expect(
            line(.fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.5)).hasSuffix(
                #""event":"fetch_failed","error":"backend answered HTTP 500 Internal Server Error: boom","latency_ms":500}"#
            ))
        #expect(line(.idChanged(from: "v-1", to: "v-2")).hasSuffix(#""event":"id_changed","from":"v-1","to":"v-2"}"#))
        #expect(
            line(.cacheDropped(reason: "vehicle ID changed from v-1")).hasSuffix(
                #""event":"cache_dropped","reason":"vehicle ID changed from v-1"}"#))
        #expect(line(.forcedRefresh).hasSuffix(#""provider":"driver","id":"v-2","event":"forced_refresh"}"#))
        #expect(
            line(.backingOff(until: Date(timeIntervalSince1970: 1_800_000_012), attempt: 3))
                .hasSuffix(#""event":"backing_off","retry_at":"2027-01-15T08:00:12.000Z","attempt":3}"#))
    }

    @Test func aFleetEngineCallIsALineWithItsAnswerAndTheVerdictComparison() {
        let answer = FleetEngineAnswer(
            method: .updateVehicle, resource: "providers/p/vehicles/v-2", httpStatus: 403,
            status: "PERMISSION_DENIED", message: "no", latency: 0.0125, fingerprint: "0badf00d", rules: .ok)
        let line = EventLineEncoder().encode(
            ProviderEvent(time: t0, provider: .driver, id: "v-2", kind: .fleetEngineCall(answer)))
        #expect(
            line.hasSuffix(
                #""event":"fleet_engine_call","method":"UpdateVehicle","resource":"providers/p/vehicles/v-2","http_status":403,"status":"PERMISSION_DENIED","message":"no","latency_ms":12.5,"fingerprint":"0badf00d","rules":"ok","verdict_disagrees":true}"#
            ), "\(line)")
    }

    @Test func aBackendRequestIsALineWithItsURLRedactedStatusAndSize() {
        let exchange = BackendExchange(
            way: .http, method: "GET", target: "http://127.0.0.1:1/token?api_key=K1234567", status: 500,
            latency: 0.0125, bytesUp: 0, bytesDown: 37, fault: "http500")
        let line = EventLineEncoder().encode(
            ProviderEvent(time: t0, provider: .driver, id: "v-2", kind: .backendRequest(exchange)))
        #expect(
            line.contains(
                #""event":"backend_request","way":"http","method":"GET","url":"http://127.0.0.1:1/token?api_key="#),
            "\(line)")
        #expect(
            line.hasSuffix(#","status":500,"latency_ms":12.5,"bytes_up":0,"bytes_down":37,"fault":"http500"}"#),
            "\(line)")
        #expect(!line.contains("K1234567"))
    }

    @Test func watchEventsNamesEveryEventOnce() throws {
        // `--events` validates against allNames; a new event kind must be added there too.
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjE4MDAwMDA2MDB9.c2ln"
        let token = FetchedToken(token: jwt, id: "t", expiresAt: t0, receivedAt: t0, jwt: try JWTInspector.decode(jwt))
        let kinds: [ProviderEvent.Kind] =
            [
                .cacheHit(expiresAt: t0), .fetchStarted(reason: .noToken), .fetched(token, latency: 0),
                .fetchFailed(.cancelled, latency: 0),
                .idChanged(from: nil, to: "t"), .cacheDropped(reason: ""), .expired(at: t0), .forcedRefresh,
                .backingOff(until: t0, attempt: 1),
                .fleetEngineCall(
                    FleetEngineAnswer(
                        method: .getTrip, resource: "providers/p/trips/t", httpStatus: 200, status: "OK",
                        message: "", latency: 0, fingerprint: "", rules: .ok)),
            ] + ContractBreach.Kind.allCases.map { .breach(ContractBreach($0, "")) } + [
                .printed(""),
                .backendRequest(
                    BackendExchange(way: .http, method: "GET", target: "", latency: 0, bytesUp: 0, bytesDown: 0)),
            ]
        #expect(
            kinds.map { ProviderEvent(time: t0, provider: .consumer, id: "t", kind: $0).name } == ProviderEvent.allNames
        )
    }

    @Test func summarisesPerProvider() {
        var consumer = ProviderCounters()
        consumer.requests = 1
        consumer.hits = 3
        let line = EventLineEncoder().summary([.consumer: consumer])
        #expect(
            line
                == #"{"event":"summary","consumer":{"errors":0,"hit_ratio":0.75,"hits":3,"requests":1},"driver":{"errors":0,"hit_ratio":null,"hits":0,"requests":0}}"#
        )
    }
}

@Suite(.timeLimit(.minutes(15))) struct SimulatedSDKsTests {
    @Test func eachSDKCachesItsOwnToken() async throws {
        let events = EventBroadcaster()
        let stream = events.subscribe(buffer: 10_000)
        let ids = (0..<50).map { IDSequence.fleetID(prefix: "trip", index: $0, count: 50) }
        let sdks = SimulatedSDKs<TripAuthorizationContext>(
            ids: ids, endpoint: .sampleBackend(.consumer, base: "http://b"),
            transport: mintingTransport(kind: .consumer),
            events: events, refreshMargin: 300)
        await sdks.update(callers: 4)
        await sdks.update(callers: 4)
        events.finish()
        var counters = ProviderCounters()
        var fetchedIDs = Set<String>()
        for await e in stream {
            counters.record(e)
            if case .fetched(let t, _) = e.kind { fetchedIDs.insert(t.id) }
        }
        #expect(counters.requests == 50, "one request per SDK however many callers")
        #expect(counters.hits == 200, "the second update is all cache hits")
        #expect(fetchedIDs == Set(ids))
        for (i, provider) in sdks.providers.enumerated() { #expect(await provider.cachedToken?.id == ids[i]) }
    }

    @Test func pausedSDKsDoNotAsk() async throws {
        let events = EventBroadcaster()
        let stream = events.subscribe()
        let sdks = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: ["v-1"], endpoint: .sampleBackend(.driver, base: "http://b"),
            transport: mintingTransport(kind: .driver),
            events: events, refreshMargin: 300)
        sdks.setPaused(true)
        let loop = Task { await sdks.run(interval: 0.01) }
        // While paused, a switch still fetches (the user asked for it); the loop itself stays quiet.
        await sdks.switchID(at: 0, to: "v-2")
        loop.cancel()
        await loop.cancellingValue
        events.finish()
        let names = await stream.reduce(into: [String]()) { $0.append($1.name) }
        #expect(names == ["fetch_started", "fetched"])
        #expect(await sdks.id(at: 0) == "v-2")
    }
}
