import Dashboard
import DashboardRuntime
import Evidence
import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import Recording
import RecordingFormat
import TapForwarding
import TapReading
import TestSupport
import Testing
import TokenReading
import UICore

/// A tapped session recorded and replayed: the replay's fleet table, and the evidence made from
/// the recording (`replay --to-cast`, `report`), carry the same churn sentences and tap columns as
/// the live table and the `--summary` line, though a recording keeps only the provider events.
@Suite(.timeLimit(.minutes(15))) struct ReplayChurnTests {
    static let t0 = TestTime.t0

    /// A fresh token at each fetch, as a backend minting on every request gives it.
    static func reading(_ id: String, at offset: TimeInterval, status: Int = 200, kind: ProviderKind = .driver) throws
        -> TappedExchange
    {
        let time = t0.addingTimeInterval(offset)
        guard status == 200 else {
            return TappedExchange(
                time: time, kind: kind, id: id, method: "GET", status: status, latency: 0.02, verdict: .httpError,
                error: "backend answered HTTP 503", failure: .httpStatus(code: 503, body: "busy"))
        }
        let iat = Int(time.timeIntervalSince1970)
        let jwt = TestJWT.make(kind: kind, id: id, iat: iat, exp: iat + 3600, claims: ["jti": "\(id)-\(offset)"])
        let token = FetchedToken(
            token: jwt, id: id, expiresAt: time.addingTimeInterval(3600), receivedAt: time,
            jwt: try JWTInspector.decode(jwt), findings: [])
        return TappedExchange(
            time: time, kind: kind, id: id, method: "GET", status: 200, latency: 0.02, verdict: .ok, token: token)
    }

    /// `readings`' provider events recorded as `tap --record` writes them (churn limit 4), read back.
    /// `actions`, each at its time, go among the events as the live loop wrote them.
    static func recorded(_ readings: [TappedExchange], actions: [(Action, Date)] = []) throws -> Recording {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tap-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var first = DashboardState(
            consumerID: "", driverID: "", now: t0, backend: "tap", faultsAvailable: false, refreshMargin: 0,
            trips: FleetStatistics.defaultCapacity, vehicles: FleetStatistics.defaultCapacity)
        first.learnMembers()
        let writer = try RecordingWriter(path: path)
        writer.start(
            RecordingHeader(
                state: first, members: [.consumer: [], .driver: []], command: ["tokendash", "tap"], source: "watch",
                tokendash: "test", ticks: false, start: t0, churnLimit: 4))
        var pending = actions[...]
        for reading in readings {
            while let (action, time) = pending.first, time <= reading.time {
                writer.record(action, at: time)
                pending = pending.dropFirst()
            }
            for event in reading.providerEvents { writer.record(event) }
        }
        for (action, time) in pending { writer.record(action, at: time) }
        #expect(writer.close() == nil)
        return try Recording.read(path)
    }

    @Test func aReplayedTapShowsTheChurnTheLiveTableShowed() throws {
        // vehicle-017 fetches every 5 minutes for 30 minutes with hour-long tokens: 7× per token.
        var readings = try (0...6).map { try Self.reading("vehicle-017", at: Double($0) * 300) }
        readings.append(try Self.reading("vehicle-123", at: 1))
        readings.append(try Self.reading("vehicle-188", at: 2, status: 503))
        readings.append(try Self.reading("vehicle-123", at: 1900))
        // A trip's fetch last: the replay ticks (and makes its tables) up to it, past the vehicles' last.
        readings.append(try Self.reading("trip-1", at: 1950.5, kind: .consumer))
        let end = Self.t0.addingTimeInterval(1950)

        // Live: the ledger `--summary` reads, and the dashboard's table as `LiveEventSource` makes it.
        var ledger = TapLedger(churnLimit: 4)
        let aggregate = FleetAggregate(learning: [.consumer, .driver])
        let marks = TapTableMarks(churnLimit: 4)
        for reading in readings {
            ledger.record(reading)
            for event in reading.providerEvents {
                aggregate.record(event)
                marks.record(event)
            }
        }
        let live = try #require(marks.apply(to: aggregate.tables(now: end), now: end)[.driver])
        #expect(ledger.churning(now: end).map(\.trouble) == ["fetches 7× per token: the app's provider is not caching"])
        #expect(live.rows.map(\.churn) == ["fetches 7× per token: the app's provider is not caching", nil, nil])

        // Recorded as `tap --record` writes it, read back, replayed to the end.
        let recording = try Self.recorded(readings)
        let timeline = ReplayTimeline(
            recording, initial: recording.header.initialState(),
            marks: TapTableMarks.maker(churnLimit: recording.header.churnLimit))
        let replayed = timeline.fold(to: recording.end).state
        let table = replayed.session.fleetTables[.driver]
        #expect(table?.rows.map(\.churn) == live.rows.map(\.churn))
        #expect(table?.rows.map(\.tapped) == live.rows.map(\.tapped))
        #expect(
            table?.rows.first?.tapped
                == TappedColumns(
                    fetches: 7, tokens: 7, verdict: "ok", level: .ok, lifetime: 3600,
                    churnBrief: "7× per token: not caching"))
        #expect(table?.rows.first { $0.id == "vehicle-188" }?.tapped?.verdict == "http_error")
        // The title counts the three IDs seen, as live.
        #expect(replayed[.driver].fleetSize == 3)

        // Without the limit (a recording of simulated providers), no tap columns.
        let plain = ReplayTimeline(recording, initial: recording.header.initialState()).fold(to: recording.end).state
        #expect(plain.session.fleetTables[.driver]?.rows.allSatisfy { $0.churn == nil && $0.tapped == nil } == true)
    }

    /// A refused token is still one the app got: the dashboard's row (fed the provider events) and
    /// its replay count it among the ID's distinct tokens, as the ledger behind `--summary` does.
    @Test func aRefusedTokenCountsAmongTheIDsTokensLiveAndReplayed() async throws {
        let iat = TestTime.seconds
        func exchange(_ jwt: String, at offset: TimeInterval) -> TapExchange {
            TapExchange(
                method: "GET", target: "/token/driver/vehicle-9", status: 200,
                body: Data(TestJWT.responseBody(jwt, expiresAtSeconds: iat + 3600).utf8), latency: 0.01,
                time: Self.t0.addingTimeInterval(offset))
        }
        let good = TestJWT.make(kind: .driver, id: "vehicle-9", iat: iat, exp: iat + 3600)
        // Minted for another vehicle: today's rules refuse it.
        let other = TestJWT.make(kind: .driver, id: "vehicle-8", iat: iat, exp: iat + 3600)
        var readings: [TappedExchange] = []
        for (offset, jwt) in [(1.0, good), (2.0, other)] {
            readings.append(
                await ExchangeReader().read(exchange(jwt, at: offset), now: Self.t0.addingTimeInterval(offset)))
        }
        #expect(readings.map(\.verdict) == [.ok, .fail])
        // A trip's fetch last: the replay ticks (and makes its tables) past the refused one.
        readings.append(try Self.reading("trip-1", at: 5.5, kind: .consumer))
        let end = Self.t0.addingTimeInterval(5)

        var ledger = TapLedger(churnLimit: 4)
        let aggregate = FleetAggregate(learning: [.consumer, .driver])
        let marks = TapTableMarks(churnLimit: 4)
        for reading in readings {
            ledger.record(reading)
            for event in reading.providerEvents {
                aggregate.record(event)
                marks.record(event)
            }
        }
        #expect(ledger.rows(now: end).filter { $0.kind == .driver }.map(\.tokens) == [2])
        let live = try #require(marks.apply(to: aggregate.tables(now: end), now: end)[.driver])
        #expect(live.rows.map(\.tapped?.tokens) == [2])
        #expect(live.rows.map(\.tapped?.verdict) == ["fail"])

        let recording = try Self.recorded(readings)
        let replayed = ReplayTimeline(
            recording, initial: recording.header.initialState(),
            marks: TapTableMarks.maker(churnLimit: recording.header.churnLimit)
        ).fold(to: recording.end).state
        #expect(replayed.session.fleetTables[.driver]?.rows.map(\.tapped?.tokens) == [2])
    }

    /// The churn session of `aReplayedTapShowsTheChurnTheLiveTableShowed`, recorded as `tap --record` writes it.
    static func recordedChurn(actions: [(Action, Date)] = []) throws -> Recording {
        // Trips: the consumer's table is the one a 160-column frame shows first.
        var readings = try (0...6).map { try reading("trip-017", at: Double($0) * 300, kind: .consumer) }
        readings.append(try reading("trip-188", at: 2, status: 503, kind: .consumer))
        readings.append(try reading("vehicle-1", at: 1950.5))
        return try recorded(readings, actions: actions)
    }

    /// `replay --to-cast` and `report` of a tapped session show the tap's columns and churn as the
    /// dashboard did; without the marks (what they did before) the columns are missing.
    @Test func theEvidenceOfATappedSessionShowsTheTapsColumns() throws {
        let recording = try Self.recordedChurn()
        let marks = TapTableMarks.maker(churnLimit: recording.header.churnLimit)
        let theme = Theme(name: "default", styles: [:])
        let cast = RecordingEvidence.cast(recording, theme: theme, marks: marks)
        // The encoder writes a frame's changes word by word: the churn sentence's first ratio is one word.
        for text in ["fetches/h", "trip-017", "5×", "http_error"] {
            #expect(cast.contains(text), "the cast lacks \(text)")
        }
        let plain = RecordingEvidence.cast(recording, theme: theme)
        #expect(!plain.contains("5×") && !plain.contains("http_error"))

        let page = RecordingEvidence.report(recording, theme: theme, name: "tap.jsonl", version: "test", marks: marks)
        #expect(page.contains("<h2 id=\"tapped\">Tapped IDs</h2>"))
        // trip-017: 7 fetches, 7 tokens, an hour's lifetime, churning; trip-188 refused by HTTP 503.
        // (The vehicle's fetch is after the last tick, so no table holds it, as in the replay.)
        #expect(
            page.contains(
                "<tr class=\"failed\"><th scope=\"row\">trip-017</th><td>ok</td><td>7</td><td>7</td><td>1 h 0 min 0 s</td><td>fetches 7× per token: the app&#39;s provider is not caching</td></tr>"
            ))
        #expect(page.contains("<th scope=\"row\">trip-188</th><td>http_error</td><td>1</td><td>0</td>"))
        let untapped = RecordingEvidence.report(recording, theme: theme, name: "tap.jsonl", version: "test")
        #expect(!untapped.contains("Tapped IDs"))
    }
}
