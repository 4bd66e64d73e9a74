import Dashboard
import Foundation
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing
import TokenReading

@testable import DashboardRuntime

/// `s`: one file holding the screen and the last events, next to the recording or in the folder given.
@Suite(.timeLimit(.minutes(15))) struct SnapshotWriterTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("snap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func fetched(_ i: Int, jwt: String) -> ProviderEvent {
        let decoded = try? JWTInspector.decode(jwt)
        let token = decoded.map {
            FetchedToken(
                token: jwt, id: "trip-\(i)", expiresAt: TestTime.t0.addingTimeInterval(60), receivedAt: TestTime.t0,
                jwt: $0)
        }
        let kind: ProviderEvent.Kind = token.map { .fetched($0, latency: 0.01) } ?? .forcedRefresh
        return ProviderEvent(
            time: TestTime.t0.addingTimeInterval(Double(i)), provider: .consumer, id: "trip-\(i)", kind: kind)
    }

    @Test func theTailKeepsTheLastEventsOldestFirst() {
        let tail = EventTail(capacity: 3)
        for i in 0..<5 {
            tail.record(ProviderEvent(time: TestTime.t0, provider: .driver, id: "v-\(i)", kind: .forcedRefresh))
        }
        #expect(tail.events().map(\.id) == ["v-2", "v-3", "v-4"])
    }

    @Test func aSnapshotHoldsTheScreenAndTheLastEventsRedacted() throws {
        let dir = try folder()
        let tail = EventTail(capacity: 200)
        let jwt = TestJWT.make(kind: .consumer, id: "trip-1", lifetime: 60)
        for i in 0..<250 { tail.record(fetched(i, jwt: jwt)) }
        let writer = SnapshotWriter(recording: nil, tail: tail, version: "tokendash 9.9", currentDirectory: dir)
        let answer = writer.write(screen: ["line one", "line two"], width: 80, at: TestTime.t0)
        let name = "tokendash-snapshot-20270115-080000.txt"
        #expect(
            answer == [.message("snapshot written to \(dir.appendingPathComponent(name).path) (screen and 200 events)")]
        )
        let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "# tokendash 9.9 snapshot at 2027-01-15T08:00:00.000Z, tokens redacted")
        #expect(lines[1] == "# screen (80x2)")
        #expect(lines[2] == "line one" && lines[3] == "line two")
        #expect(lines[4] == "# last 200 events, as `tokendash watch` prints them")
        let events = lines.filter { $0.hasPrefix("{") }
        #expect(events.count == 200)
        #expect(events.first?.contains("\"id\":\"trip-50\"") == true, "the oldest kept is the 51st")
        #expect(!text.contains(jwt), "no whole token in a snapshot")
        // A second one in the same second does not overwrite the first.
        _ = writer.write(screen: ["again"], width: 1, at: TestTime.t0)
        #expect(
            FileManager.default.fileExists(
                atPath: dir.appendingPathComponent("tokendash-snapshot-20270115-080000-2.txt").path))
    }

    @Test func itGoesNextToTheRecordingNamedAfterIt() throws {
        let dir = try folder()
        let writer = SnapshotWriter(
            recording: dir.appendingPathComponent("outage.jsonl"), tail: EventTail(), version: "v")
        _ = writer.write(screen: ["x"], width: 1, at: TestTime.t0)
        #expect(
            FileManager.default.fileExists(
                atPath: dir.appendingPathComponent("outage-snapshot-20270115-080000.txt").path))
    }

    @Test func aFolderThatCannotBeWrittenIsSaidInOneLine() {
        let writer = SnapshotWriter(
            recording: nil, tail: EventTail(), version: "v",
            currentDirectory: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"))
        let answer = writer.write(screen: ["x"], width: 1, at: TestTime.t0)
        guard case .message(let text?)? = answer.first else {
            Issue.record("no message: \(answer)")
            return
        }
        #expect(text.hasPrefix("snapshot not written: /nonexistent-"))
        #expect(!text.contains("\n"))
    }
}
