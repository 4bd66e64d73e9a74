import Fleet
import FleetTables
import Foundation
import HTTPTransport
import JSONValues
import ProviderVocabulary
import TapForwarding
import TapReading
import TestSupport
import Testing
import TokenReading

/// Churn as the tap sees it: 200 devices fetch through it, 197 whose provider caches (one fetch
/// each) and 3 whose provider fetches at every update; those 3 lead the table and the summary.
@Suite(.timeLimit(.minutes(15))) struct ChurnTests {
    static let lifetime = 3600

    static func backend() throws -> ScriptedBackend {
        try ScriptedBackend { path in
            let id = String(path.split(separator: "/").last ?? "")
            // A fresh token each time, as a backend that mints on every request does.
            let iat = Int(Date().timeIntervalSince1970)
            let jwt = TestJWT.make(
                kind: .driver, id: id, iat: iat, exp: iat + lifetime, claims: ["jti": UUID().uuidString])
            let body = Data(TestJWT.responseBody(jwt, expiresAtSeconds: iat + lifetime).utf8)
            return ScriptedBackend.Answer(
                bytes: Data(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
                    + body)
        }
    }

    @Test func devicesThatFetchAtEveryUpdateLeadTheTableAndTheSummary() async throws {
        let backend = try Self.backend()
        defer { backend.stop() }
        let readings = Readings()
        let analysis = TapAnalysis(reader: ExchangeReader(), churnLimit: 4, sinks: [readings.add])
        // The dashboard's fleet table, as `tap` feeds it: the provider events of the real IDs.
        let fleet = FleetAggregate(learning: [.driver])
        let events = analysis.events.subscribe(buffer: 1 << 12)
        let collecting = Task { for await event in events { fleet.record(event) } }
        let reading = Task { await analysis.run() }
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: analysis.submit)
        // Kept-alive connections to the tap, as apps keep them; the backend closes its side after
        // every answer, so the tap's kept-alive upstream connections are closed under it too.
        let transport = keptForTheRun(try HTTPClientTransport(connectTimeout: patientTimeout))
        let devices = (0..<200).map { String(format: "vehicle-%03d", $0) }
        let careless: Set = ["vehicle-017", "vehicle-123", "vehicle-188"]
        let updates = 12
        var sent = 0
        for update in 0..<updates {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for device in devices where update == 0 || careless.contains(device) {
                    group.addTask {
                        let url = try #require(URL(string: "\(tap.baseURL)/token/driver/\(device)"))
                        let answer = try await transport.send(TransportRequest(url: url, timeout: 600))
                        #expect(answer.status == 200)
                    }
                    sent += 1
                }
                try await group.waitForAll()
            }
        }
        _ = await readings.wait(for: sent)
        await transport.shutdown()
        await tap.stop()
        analysis.finish()
        await reading.cancellingValue
        analysis.events.finish()
        await collecting.cancellingValue

        let table = try #require(TapTableMarks.apply(analysis.rows(), to: fleet.tables(now: Date()))[.driver])
        #expect(table.rows.count == 200)
        #expect(Set(table.rows.prefix(3).map(\.id)) == careless)
        #expect(
            table.rows.prefix(3).allSatisfy {
                $0.churn == "fetches 12× per token: the app's provider is not caching" && $0.isTrouble
            })
        #expect(table.rows.dropFirst(3).allSatisfy { !$0.isTrouble })

        let rows = analysis.rows()
        #expect(rows.count == 200)
        #expect(Set(rows.prefix(3).map(\.id)) == careless)
        #expect(rows[0].trouble == "fetches 12× per token: the app's provider is not caching")
        #expect(rows[0].fetches == 12 && rows[0].tokens == 12)
        #expect(rows[3...].allSatisfy { !$0.isTrouble && $0.fetches == 1 })
        let summary = TapLineEncoder().churn(
            analysis.churning(), limit: 4, exchanges: analysis.exchangeCount, unread: analysis.droppedCount)
        let line = try JSONValue.decode(Data(summary.utf8))
        #expect(line["event"] == .string("churn"))
        #expect(line["unread"] == .int(0))
        guard case .array(let ids)? = line["ids"] else {
            Issue.record("no ids in \(summary)")
            return
        }
        #expect(Set(ids.compactMap { $0["id"]?.stringValue }) == careless)
        #expect(ids.first?["fetches_per_token"]?.numberValue == 12)
    }

    @Test func fetchesAreJudgedPerTokenLifetime() throws {
        var ledger = TapLedger(churnLimit: 4)
        let t0 = TestTime.t0
        func fetch(_ id: String, at seconds: Double, lifetime: Int) throws {
            let jwt = TestJWT.make(kind: .consumer, id: id, iat: TestTime.seconds, exp: TestTime.seconds + lifetime)
            let token = FetchedToken(
                token: jwt, id: id, expiresAt: t0.addingTimeInterval(Double(lifetime)), receivedAt: t0,
                jwt: try JWTInspector.decode(jwt), findings: [])
            ledger.record(
                TappedExchange(
                    time: t0.addingTimeInterval(seconds), kind: .consumer, id: id, method: "GET", status: 200,
                    latency: 0.001, verdict: .ok, token: token))
        }
        // A 60 s token fetched every 50 s for 20 minutes: once per lifetime, no churn.
        for i in 0..<24 { try fetch("trip-short", at: Double(i * 50), lifetime: 60) }
        // A 1 h token fetched every 10 s for 2 minutes: 12 times per token.
        for i in 0..<12 { try fetch("trip-eager", at: 1000 + Double(i * 10), lifetime: 3600) }
        let rows = ledger.rows(now: t0.addingTimeInterval(1200))
        #expect(rows.map(\.id) == ["trip-eager", "trip-short"])
        #expect(rows[0].churning && rows[0].fetchesPerToken == 12)
        #expect(!rows[1].churning)
        #expect(ledger.rows(now: t0.addingTimeInterval(1200), filter: "SHORT").map(\.id) == ["trip-short"])
        // An hour later the IDs have left the table.
        #expect(ledger.rows(now: t0.addingTimeInterval(1200 + 3700)).isEmpty)
    }

    /// A flood of new IDs past the limit: the ledger stays within it by dropping the IDs seen
    /// longest ago, a tenth at a time, and keeps the rest.
    @Test func aFloodOfNewIDsDropsTheOldestAndKeepsTheLimit() throws {
        var ledger = TapLedger(churnLimit: 4, idLimit: 100)
        let t0 = TestTime.t0
        for i in 0..<250 {
            ledger.record(
                TappedExchange(
                    time: t0.addingTimeInterval(Double(i)), kind: .consumer, id: "flood-\(i)", method: "GET",
                    status: 503, latency: 0.001, verdict: .httpError))
            #expect(ledger.count <= 100)
        }
        let now = t0.addingTimeInterval(250)
        #expect(ledger.count >= 90, "a tenth dropped at a time, not the lot: \(ledger.count)")
        #expect(ledger.history(.consumer, id: "flood-249", now: now) != nil)
        #expect(ledger.history(.consumer, id: "flood-0", now: now) == nil)
        #expect(ledger.history(.consumer, id: "flood-140", now: now) == nil, "older than the newest 100")
    }

    /// An ID's fetches are counted by minute in a list kept in time order: a fetch out of order
    /// (a recording's, a clock's step back) lands in its own minute, a repeated minute adds to
    /// it, and minutes past the hour drop out of the count and, past sixty kept, of the list.
    @Test func fetchesCountByMinuteInAnyOrderOverTheLastHour() {
        let t0 = TestTime.t0
        var counts = TappedCounts(since: t0)
        for minute in [5, 2, 5, 0, 2, 2] {
            counts.record(at: t0.addingTimeInterval(Double(minute) * 60), fingerprint: nil, lifetime: nil)
        }
        #expect(counts.fetches(now: t0.addingTimeInterval(5 * 60)) == 6)
        // At minute 61 the fetches of minute 0 are over an hour old; at minute 63, minute 2's too.
        #expect(counts.fetches(now: t0.addingTimeInterval(61 * 60)) == 5)
        #expect(counts.fetches(now: t0.addingTimeInterval(63 * 60)) == 2)
        var same = TappedCounts(since: t0)
        for minute in [0, 2, 2, 2, 5, 5] {
            same.record(at: t0.addingTimeInterval(Double(minute) * 60), fingerprint: nil, lifetime: nil)
        }
        #expect(counts == same, "the same fetches in another order count the same")
        // A fetch a minute for 70 minutes: the hour's sixty are counted, the oldest dropped.
        var steady = TappedCounts(since: t0)
        for minute in 0..<70 {
            steady.record(at: t0.addingTimeInterval(Double(minute) * 60), fingerprint: nil, lifetime: nil)
        }
        #expect(steady.fetches(now: t0.addingTimeInterval(69 * 60)) == 60)
    }

    /// The ledger keeps an ID's newest 60 fetches (an hour at one a minute) for the pane that
    /// follows it, and counts every one.
    @Test func theLedgerKeepsTheLastSixtyFetchesOfAnID() throws {
        var ledger = TapLedger(churnLimit: 4)
        let readings = try (0..<75).map { try ReplayChurnTests.reading("vehicle-017", at: Double($0) * 30) }
        for reading in readings { ledger.record(reading) }
        let now = ReplayChurnTests.t0.addingTimeInterval(75 * 30)
        let history = try #require(ledger.history(.driver, id: "vehicle-017", now: now))
        #expect(TapLedger.fetchLimit == 60)
        #expect(history.fetches.map(\.fingerprint) == readings.suffix(60).map(\.fingerprint))
        #expect(history.counts.fetches(now: now) == 75)
        #expect(history.counts.tokens(now: now) == 75)
        #expect(history.churn(now: now) == "fetches 75× per token: the app's provider is not caching")
    }
}
