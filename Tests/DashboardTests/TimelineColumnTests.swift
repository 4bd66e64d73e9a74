import Foundation
import Testing
import UICore

@testable import Dashboard

/// The timelines' columns are fixed stretches of time, the last one holding now (btop's graphs
/// are the model): an event that has just happened shows in the last column; within a stretch
/// the lanes hold still; at each new stretch they move one column left, all together. A drawer
/// that keeps a memo draws what one without draws.
@Suite(.timeLimit(.minutes(15))) struct TimelineColumnTests {
    /// The consumer pane's timeline rows of `state`, drawn at 160x48.
    static func timeline(_ state: DashboardState, memo: RenderMemo? = nil) -> [String] {
        let lines = Renderer.render(state, width: 160, height: 48, memo: memo).lines
        let rows = ["tokens", "requests", "latency", "marks"]
        return lines.filter { line in rows.contains { line.contains("│ \($0)") } }.map { String($0.prefix(80)) }
    }

    static func at(_ state: DashboardState, _ seconds: TimeInterval) -> DashboardState {
        var later = state
        _ = Reducer.reduce(&later, .tick(Fixtures.t0.addingTimeInterval(seconds)))
        return later
    }

    @Test func aFailureThatJustHappenedShowsInTheLastColumn() throws {
        var state = GoldenFrameTests.history()
        Fixtures.apply(
            &state,
            Fixtures.event(
                .consumer, "trip-0002", .fetchFailed(.httpStatus(code: 503, body: "busy"), latency: 0.3), at: 115))
        let requests = try #require(Self.timeline(state).first { $0.contains("requests") })
        #expect(requests.hasSuffix("✗ │"), "\(requests)")
    }

    @Test func theLanesHoldStillWithinAStretchAndMoveAColumnAtEachNewOne() throws {
        let state = GoldenFrameTests.history()
        // Two minutes over this pane's columns makes a stretch of about two seconds: frames every
        // tenth of a second over six seconds cross from one stretch into the next a few times.
        let frames = stride(from: 115.0, through: 121, by: 0.1).map { Self.timeline(Self.at(state, $0)) }
        let changes = zip(frames, frames.dropFirst()).filter { $0 != $1 }
        #expect(changes.count >= 2 && changes.count <= 4, "\(changes.count) changes in 6 s of tenths")
        // At each change, the request lane's marks are where they were, a column left.
        let marks = { (lines: [String]) in
            (lines.first { $0.contains("requests") } ?? "").enumerated().filter { "✓✗".contains($0.element) }
                .map(\.offset)
        }
        // The plot starts after "│ " and the label column.
        let first = 2 + PaneRenderer.labelWidth
        for (before, after) in changes {
            #expect(marks(after) == marks(before).map { $0 - 1 }.filter { $0 >= first }, "\(before)\n\(after)")
        }
    }

    @Test func aTimelineDrawnWithTheMemoIsTheTimelineDrawnWithout() {
        var state = GoldenFrameTests.history()
        let memo = RenderMemo()
        var seen: Set<[String]> = []
        for tenth in 0..<80 {
            let seconds = 115 + Double(tenth) / 10
            state = Self.at(state, seconds)
            if tenth == 20 {
                Fixtures.apply(
                    &state,
                    Fixtures.event(
                        .consumer, "trip-0002", .fetchFailed(.httpStatus(code: 503, body: "busy"), latency: 0.3),
                        at: seconds))
            }
            if tenth == 30 {
                state.marks.append(Mark(number: 3, at: Fixtures.t0.addingTimeInterval(seconds), note: "now"))
            }
            if tenth == 40 {
                state.marks.append(Mark(number: 4, at: Fixtures.t0.addingTimeInterval(seconds + 0.5), note: "ahead"))
            }
            if tenth == 50 { Fixtures.apply(&state, .key(.character("-"))) }
            let drawn = Renderer.render(state, width: 160, height: 48, memo: memo)
            let plain = Renderer.render(state, width: 160, height: 48)
            #expect(drawn.lines == plain.lines, "at \(seconds) s")
            let same = drawn == plain
            #expect(same, "at \(seconds) s: the same text in other colours")
            seen.insert(Self.timeline(state))
        }
        #expect(seen.count >= 6, "the timelines differ, so a stale one would show")
    }
}
