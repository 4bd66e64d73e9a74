import Dashboard
import DashboardRuntime
import Fleet
import FleetAuth
import Foundation
import Tap
import TestSupport
import Testing

/// A tapped session recorded and replayed: the replay's fleet table carries the same churn
/// sentences and tap columns as the live table and the `--summary` line, though a recording
/// keeps only the provider events.
@Suite(.timeLimit(.minutes(3))) struct ReplayChurnTests {
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
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tap-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var first = DashboardState(
            consumerID: "", driverID: "", now: Self.t0, backend: "tap", faultsAvailable: false,
            trips: FleetStatistics.defaultCapacity, vehicles: FleetStatistics.defaultCapacity)
        first.learnMembers()
        let writer = try RecordingWriter(path: path)
        writer.start(
            RecordingHeader(
                state: first, members: [.consumer: [], .driver: []], command: ["tokendash", "tap"], source: "watch",
                tokendash: "test", ticks: false, start: Self.t0, churnLimit: 4))
        for reading in readings { for event in reading.providerEvents { writer.record(event) } }
        #expect(writer.close() == nil)
        let recording = try Recording.read(path)
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
}
