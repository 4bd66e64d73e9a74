import Foundation
import LogReading
import TestSupport
import Testing

@testable import LogsScreen
@testable import UICore

/// The logs screen playing its export as a recording plays: on a clock the test moves
/// (`advance(by:)`), never the wall's. The export is `LogsScreenTests.export`: vehicle-1 calls
/// every 5 s to 115 s, is silent to 415 s and errs at 533 s; vehicle-2 calls every 10 s from 2 s
/// to 292 s and errs at 301 s; trip-1 rides with vehicle-1's first stretch.
@Suite(.timeLimit(.minutes(15))) struct LogsPlaybackTests {
    static let folder = LogsScreenTests.folder
    static let base = LogsScreenTests.base
    static let rows = LogsRenderer.tableRows(height: 24)

    /// The export's lines with their times, to read only those up to an instant.
    static var lines: [String] {
        String(decoding: LogsScreenTests.export, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// What `tokendash logs --summary` says of the export cut at `seconds` after its start.
    static func summaryOfTheExportCut(at seconds: Double) -> String {
        let cut = base.adding(seconds: seconds)
        let kept = lines.filter { line in
            guard let range = line.range(of: #""timestamp":""#) else { return false }
            let time = line[range.upperBound...].prefix(while: { $0 != "\"" })
            return LogInstant.parse(String(time)).map { $0 <= cut } ?? false
        }
        var reader = ExportReader()
        var source = MemoryChunkSource(Array((kept.joined(separator: "\n") + "\n").utf8))
        reader.read(&source, name: "cut.json")
        return LogSummary(reader).json
    }

    static func pressing(_ keys: [Key], _ view: LogsView = LogsScreenTests.view(tap: false)) -> LogsView {
        var view = view
        for key in keys { _ = view.handle(key, visibleRows: rows) }
        return view
    }

    @Test func itOpensPausedOnTheWholeExportAsTheSummarySaysIt() throws {
        let view = LogsScreenTests.view(tap: false)
        let player = try #require(view.player)
        #expect(player.paused && player.atEnd)
        #expect(view.summary.json == player.whole.json)
        #expect(player.at == Self.base.adding(seconds: 533))
    }

    /// At any instant the screen holds what a read of the export cut there holds: the calls, the
    /// errors, the silences so far, back and forth.
    @Test(arguments: [0.0, 60, 116, 300, 301, 420, 532])
    func atAnInstantItIsTheExportCutThere(_ seconds: Double) throws {
        var view = LogsScreenTests.view(tap: false)
        var player = try #require(view.player)
        player.seek(to: Self.base.adding(seconds: seconds))
        #expect(player.summary.json == Self.summaryOfTheExportCut(at: seconds), "forward to \(seconds) s")
        player.seek(to: Self.base.adding(seconds: 533))
        player.seek(to: Self.base.adding(seconds: seconds))
        #expect(player.summary.json == Self.summaryOfTheExportCut(at: seconds), "back to \(seconds) s")
        view = Self.pressing([.character("[")], view)
        #expect(view.summary.entries == 1, "the start: vehicle-1's first call, with trip-1 (create_trip is at 1 s)")
    }

    @Test func spaceAtTheEndPlaysFromTheStartAtTheChosenSpeedAndStopsAtTheEnd() throws {
        var view = Self.pressing([.character(" ")])
        var player = try #require(view.player)
        #expect(!player.paused && player.at == Self.base && player.speed == 60)
        view.advance(by: .seconds(2), visibleRows: Self.rows)
        player = try #require(view.player)
        #expect(player.at == Self.base.adding(seconds: 120), "2 s at 60× is two minutes of the export")
        #expect(view.summary.json == Self.summaryOfTheExportCut(at: 120))
        view = Self.pressing([.character(">")], view)
        #expect(view.player?.speed == 600)
        view.advance(by: .milliseconds(500), visibleRows: Self.rows)
        #expect(view.player?.at == Self.base.adding(seconds: 420))
        view.advance(by: .seconds(10), visibleRows: Self.rows)
        player = try #require(view.player)
        #expect(player.atEnd && player.paused, "it stops at the end")
        #expect(view.summary.json == player.whole.json)
        view.advance(by: .seconds(10), visibleRows: Self.rows)
        #expect(view.player?.at == Self.base.adding(seconds: 533), "paused, time moves nothing")
        view = Self.pressing([.character(">"), .character(">")], view)
        #expect(view.player?.speed == 10, "the speeds go round: 600, 1, 10")
    }

    @Test func arrowsSeekASixtiethOfTheSpanAndDotStepsToTheNextCall() throws {
        var view = Self.pressing([.character("["), .right, .right])
        #expect(view.player?.step == 10, "533 s: a sixtieth is 8.9 s, and 10 s the step")
        #expect(view.player?.at == Self.base.adding(seconds: 20))
        view = Self.pressing([.left, .left, .left], view)
        #expect(view.player?.at == Self.base, "not before the start")
        view = Self.pressing([.character(" "), .character(".")], view)
        #expect(view.player?.paused == true, ". pauses")
        #expect(view.player?.at == Self.base.adding(seconds: 1), "the create_trip at 1 s")
        view = Self.pressing([.character(".")], view)
        #expect(view.player?.at == Self.base.adding(seconds: 2))
        view = Self.pressing([.character("]")], view)
        #expect(view.player?.atEnd == true)
    }

    @Test func theSelectionStaysOnItsIDAsRowsComeAndResort() throws {
        // At 30 s nothing is wrong yet: vehicle-1, vehicle-2, trip-1 by ID; select vehicle-2.
        var view = Self.pressing([.character("["), .right, .right, .right, .down])
        #expect(view.listed.map(\.tally.id.id) == ["vehicle-1", "vehicle-2", "trip-1"])
        #expect(view.selected == 1)
        // At 310 s vehicle-2 has erred and goes first; the selection goes with it.
        view = Self.pressing(Array(repeating: .right, count: 28), view)
        #expect(view.listed.map(\.tally.id.id) == ["vehicle-2", "vehicle-1", "trip-1"])
        #expect(view.selected == 0)
        view = Self.pressing([.enter, .character("]")], view)
        #expect(view.following == LoggedID(.vehicle, "vehicle-2"))
        // Back before vehicle-2's first call, the ID is not listed yet: the table shows again.
        view = Self.pressing([.character("[")], view)
        #expect(view.following == nil && view.rows.count == 2)
    }

    /// A silence under way shows before the call that ends it: at 240 s vehicle-1 has been quiet
    /// since 115 s, past its 60 s threshold; vehicle-2, which called at 232 s, is not.
    @Test func aSilenceUnderWayIsMarkedWhilePlaying() throws {
        var view = Self.pressing([.character(" ")])
        view.advance(by: .seconds(4), visibleRows: Self.rows)
        let quiet = Dictionary(uniqueKeysWithValues: view.rows.map { ($0.tally.id.id, $0.quietFor) })
        #expect(quiet["vehicle-1"] == 125)
        #expect(quiet["vehicle-2"] == .some(nil))
        view = Self.pressing([.character("]")], view)
        #expect(view.rows.allSatisfy { $0.quietFor == nil }, "at the end the summary's silences say it")
    }

    @Test func theTimelineSortsWhatCameUnsortedAndKeepsItsLimit() {
        var timeline = ExportTimeline(maxCalls: 3)
        for seconds in [30.0, 10, 20, 10, 40] {
            timeline.add(
                LogEntry(
                    method: "update_vehicle", time: Self.base.adding(seconds: seconds), ids: [LoggedID(.vehicle, "v")]))
        }
        timeline.finish()
        #expect(timeline.count == 3 && timeline.dropped == 2)
        #expect((0..<3).map { Self.base.seconds(to: timeline.time(at: $0)) } == [10, 20, 30])
        #expect(timeline.count(through: Self.base.adding(seconds: 20)) == 2)
        #expect(
            timeline.entry(at: 0).ids == [LoggedID(.vehicle, "v")] && timeline.entry(at: 0).method == "update_vehicle")
    }

    /// The tap's finding shows from its first quiet stretch on: vehicle-1's silence starts at 115 s.
    @Test func aTapFindingShowsOnceItsSilenceIsReached() throws {
        var view = Self.pressing([.character("[")], LogsScreenTests.view(tap: true))
        #expect(view.summary.tap?[LoggedID(.vehicle, "vehicle-1")] == nil)
        view = Self.pressing(Array(repeating: .right, count: 12), view)
        #expect(view.summary.tap?[LoggedID(.vehicle, "vehicle-1")]?.verdict == .refusedWhileSilent)
    }

    /// Playing, 4 min in: vehicle-1 quiet since 115 s (its silence not over, so not yet counted),
    /// vehicle-2 calling; the header says the entries so far of all, the playhead and its bar.
    @Test(arguments: [(160, 48), (80, 24)])
    func playing(_ width: Int, _ height: Int) throws {
        var view = Self.pressing([.character(" ")], LogsScreenTests.view(tap: true))
        view.advance(by: .seconds(4), visibleRows: LogsRenderer.tableRows(height: height))
        try GoldenFrame.check(
            LogsRenderer.render(view, width: width, height: height), name: "playing", in: Self.folder)
        var followed = view
        _ = followed.handle(.enter, visibleRows: LogsRenderer.tableRows(height: height))
        try GoldenFrame.check(
            LogsRenderer.render(followed, width: width, height: height), name: "playing-follow", in: Self.folder)
    }
}
