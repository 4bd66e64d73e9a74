import Dashboard
import Foundation
import RecordingFormat
import TestSupport
import Testing

@testable import DashboardRuntime
@testable import Recording

/// Marks go into a recording as `mark` lines and come back from it as the same marks.
@Suite(.timeLimit(.minutes(15))) struct MarkRecordingTests {
    @Test func aMarkLineRoundTripsWithItsOwnTimeAndARedactedNote() throws {
        let base = RecordingTimeBase(start: TestTime.t0)
        let jwt = TestJWT.make(kind: .consumer, id: "trip-1", lifetime: 60)
        let mark = Mark(number: 3, at: TestTime.t0.addingTimeInterval(12.5), note: "customer pasted \(jwt)")
        // The answer came a moment after the moment marked: the line keeps the mark's own time.
        let line = try #require(RecordedLine(.marked(mark), at: TestTime.t0.addingTimeInterval(13), base: base))
        guard case .mark(index: 3, at: 12.5?, note: _) = line.content, line.t == 13 else {
            Issue.record("not mark 3 at 12.5 s, written at 13 s: \(line)")
            return
        }
        let text = String(decoding: try JSONEncoder().encode(line), as: UTF8.self)
        #expect(!text.contains(jwt), "a token in a note is redacted like any text")
        let back = try JSONDecoder().decode(RecordedLine.self, from: Data(text.utf8))
        guard case .marked(let replayed)? = try back.action(base: base, themes: { _ in nil }) else {
            Issue.record("not a mark: \(text)")
            return
        }
        #expect(replayed.number == 3 && replayed.at == mark.at)
        #expect(replayed.note?.hasPrefix("customer pasted eyJ") == true && replayed.note != mark.note)
    }

    @Test func aSeekBackKeepsTheViewersOwnMarks() {
        var s = DashboardState(
            consumerID: "trip-1", driverID: "vehicle-1", now: TestTime.t0, backend: "b", faultsAvailable: false)
        s.replay = ReplayStatus(
            position: TestTime.t0, start: TestTime.t0, end: TestTime.t0.addingTimeInterval(60), speed: 1)
        var recorded = s
        recorded.marks = [Mark(number: 1, at: TestTime.t0.addingTimeInterval(5))]
        s.marks = [
            Mark(number: 1, at: TestTime.t0.addingTimeInterval(5)),
            Mark(number: 2, at: TestTime.t0.addingTimeInterval(40), note: "viewer"),
        ]
        _ = Reducer.reduce(&s, .restore(recorded))
        #expect(s.marks.map(\.number) == [1, 2])
    }

    @Test func aRecordedFreezeIsNotReplayedTheViewerFreezesWithTheirOwnKey() {
        var s = DashboardState(
            consumerID: "trip-1", driverID: "vehicle-1", now: TestTime.t0, backend: "b", faultsAvailable: false)
        s.replay = ReplayStatus(
            position: TestTime.t0, start: TestTime.t0, end: TestTime.t0.addingTimeInterval(60), speed: 1)
        _ = Reducer.reduce(&s, .recorded(.key(.character("z"))))
        #expect(s.frozen == nil)
        _ = Reducer.reduce(&s, .key(.character("z")))
        #expect(s.frozen != nil)
    }
}
