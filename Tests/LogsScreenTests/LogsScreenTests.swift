import Foundation
import LogReading
import TestSupport
import Testing

@testable import LogsScreen
@testable import UICore

/// The logs screen's whole frames at 80x24 and 160x48 (files in Golden/; `UPDATE_GOLDEN=1`
/// writes them anew), and its keys, on an export built here from the documented field names.
@Suite(.timeLimit(.minutes(15))) struct LogsScreenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    /// 2024-05-01T10:00:00Z.
    static let base = LogInstant(microseconds: 1_714_557_600 * 1_000_000)

    static func entry(
        _ n: Int, at seconds: Double, labels: String, header: String?, error: String? = nil,
        method: String = "update_vehicle", type: String = "UpdateVehicleLog"
    ) -> String {
        let time = base.adding(seconds: seconds).description
        let request = header.map { #"{"header":\#($0)}"# } ?? "{}"
        let outcome = error.map { #""errorResponse":\#($0)"# } ?? #""response":{"name":"x"}"#
        return #"{"insertId":"e\#(n)","logName":"projects/p/logs/fleetengine.googleapis.com%2F\#(method)","#
            + #""labels":\#(labels),"timestamp":"\#(time)",\#(error == nil ? "" : #""severity":"ERROR","#)"#
            + #""jsonPayload":{"@type":"type.googleapis.com/maps.fleetengine.v1.\#(type)","request":\#(request),"#
            + outcome + "}}"
    }

    static let android =
        #"{"sdkVersion":"5.0.0","osVersion":"14","platform":"PLATFORM_LOG_ANDROID","sdkType":"SDK_TYPE_LOG_DRIVER","deviceModel":"Pixel 8"}"#
    static let ios =
        #"{"sdkVersion":"6.1.0","osVersion":"17.4","platform":"PLATFORM_LOG_IOS","sdkType":"SDK_TYPE_LOG_DRIVER","deviceModel":"iPhone15,2"}"#

    /// vehicle-1 (Android, every 5 s, a 5-minute silence, one NOT_FOUND) serving trip-1;
    /// vehicle-2 (iOS, every 10 s to 300 s, one PERMISSION_DENIED); a server's create_trip.
    static var export: [UInt8] {
        var lines: [String] = []
        var n = 0
        func add(_ line: String) {
            lines.append(line)
            n += 1
        }
        for t in stride(from: 0.0, through: 115, by: 5) {
            add(entry(n, at: t, labels: #"{"vehicle_id":"vehicle-1","trip_id":"trip-1"}"#, header: android))
        }
        for t in stride(from: 415.0, through: 530, by: 5) {
            add(entry(n, at: t, labels: #"{"vehicle_id":"vehicle-1"}"#, header: android))
        }
        add(
            entry(
                n, at: 533, labels: #"{"vehicle_id":"vehicle-1"}"#, header: android,
                error: #"{"code":"NOT_FOUND","httpStatusCode":404,"message":"vehicle not found"}"#,
                method: "get_vehicle", type: "GetVehicleLog"))
        for t in stride(from: 2.0, through: 292, by: 10) {
            add(entry(n, at: t, labels: #"{"vehicle_id":"vehicle-2"}"#, header: ios))
        }
        add(
            entry(
                n, at: 301, labels: #"{"vehicle_id":"vehicle-2"}"#, header: ios,
                error: #"{"code":"PERMISSION_DENIED","httpStatusCode":403,"message":"denied"}"#))
        add(
            entry(n, at: 1, labels: #"{"trip_id":"trip-1"}"#, header: nil, method: "create_trip", type: "CreateTripLog")
        )
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// The screen as `tokendash logs` opens it: on the whole export, paused at its end.
    static func view(tap: Bool = true) -> LogsView {
        var reader = ExportReader()
        var timeline = ExportTimeline()
        reader.onEntry = { timeline.add($0) }
        var source = MemoryChunkSource(export)
        reader.read(&source, name: "fleet.json")
        timeline.finish()
        let fetches = [
            TapFetch(
                time: base.adding(seconds: 200), id: LoggedID(.vehicle, "vehicle-1"),
                outcome: .flawed("expired on arrival")),
            TapFetch(
                time: base.adding(seconds: 300), id: LoggedID(.vehicle, "vehicle-1"),
                outcome: .flawed("expired on arrival")),
            TapFetch(
                time: base.adding(seconds: 60), id: LoggedID(.vehicle, "vehicle-9"),
                outcome: .flawed("for another vehicleid")),
        ]
        var join = TapJoin(reader.tally)
        for fetch in fetches { join.add(fetch) }
        let summary = LogSummary(reader, tap: tap ? join : nil)
        return LogsPlayer(timeline, whole: summary).map { LogsView($0, source: "fleet.json") }
            ?? LogsView(summary, source: "fleet.json")
    }

    static func pressing(_ keys: [Key], height: Int = 24) -> LogsView {
        var view = view()
        for key in keys { _ = view.handle(key, visibleRows: LogsRenderer.tableRows(height: height)) }
        return view
    }

    func check(_ name: String, _ view: LogsView, _ width: Int, _ height: Int) throws {
        try GoldenFrame.check(LogsRenderer.render(view, width: width, height: height), name: name, in: Self.folder)
    }

    /// The table, troubled IDs first: vehicle-1 refused while silent, vehicle-9 only in the tap,
    /// vehicle-2's error; the header with the span, the entries and the tap's totals.
    @Test(arguments: [(160, 48), (80, 24)])
    func theTable(_ width: Int, _ height: Int) throws { try check("table", Self.view(), width, height) }

    /// vehicle-1 followed: its lane of calls with the silence, the tap's sentence, the silence with
    /// the tap's fetches in it, its error and message, methods, and its SDK header.
    @Test(arguments: [(160, 48), (80, 24)])
    func oneIDFollowed(_ width: Int, _ height: Int) throws {
        try check("follow", Self.pressing([.enter], height: height), width, height)
    }

    /// The version table: Android 5.0.0 with its silent device and the one the tap explains.
    @Test(arguments: [(160, 48), (80, 24)])
    func theVersionTable(_ width: Int, _ height: Int) throws {
        try check("versions", Self.pressing([.character("v")], height: height), width, height)
    }

    /// `/` and part of an ID: the table lists the IDs holding it, the footer says how many of all.
    @Test(arguments: [(160, 48), (80, 24)])
    func findingAnID(_ width: Int, _ height: Int) throws {
        let typing = Self.pressing([.character("/")] + "LE-2".map { Key.character($0) }, height: height)
        try check("find", typing, width, height)
        var kept = typing
        _ = kept.handle(.enter, visibleRows: LogsRenderer.tableRows(height: height))
        try check("found", kept, width, height)
    }

    @Test func aFilterIsTypedKeptFollowedAndCleared() {
        var view = Self.view()
        for key in [Key.character("/"), .character("9"), .character("x"), .backspace, .enter] {
            _ = view.handle(key, visibleRows: 20)
        }
        #expect(view.filter == "9" && !view.typingFilter)
        #expect(view.listed.map(\.tally.id.id) == ["vehicle-9"])
        #expect(view.handle(.character("q"), visibleRows: 20) == .quit, "q quits once the filter is kept")
        _ = view.handle(.enter, visibleRows: 20)
        #expect(view.following == LoggedID(.vehicle, "vehicle-9"))
        _ = view.handle(.escape, visibleRows: 20)
        #expect(view.following == nil && view.filter == "9", "Esc leaves the ID first")
        _ = view.handle(.escape, visibleRows: 20)
        #expect(view.filter.isEmpty && view.listed.count == 4)
        _ = view.handle(.character("/"), visibleRows: 20)
        #expect(view.handle(.character("q"), visibleRows: 20) == .stay, "while typing, q is text")
        #expect(view.filter == "q" && view.listed.isEmpty)
        _ = view.handle(.escape, visibleRows: 20)
        #expect(!view.typingFilter && view.filter.isEmpty)
    }

    @Test func keysSelectFollowGoBackAndQuit() {
        var view = Self.view()
        #expect(view.rows.map(\.tally.id.id) == ["vehicle-1", "vehicle-9", "vehicle-2", "trip-1"])
        #expect(view.handle(.down, visibleRows: 2) == .stay)
        #expect(view.selected == 1)
        _ = view.handle(.enter, visibleRows: 2)
        #expect(view.following == LoggedID(.vehicle, "vehicle-9"))
        _ = view.handle(.down, visibleRows: 2)
        #expect(view.following == LoggedID(.vehicle, "vehicle-2"), "↓ while following follows the next ID")
        _ = view.handle(.escape, visibleRows: 2)
        #expect(view.following == nil)
        _ = view.handle(.end, visibleRows: 2)
        #expect(view.selected == 3 && view.top == 2, "the table scrolls to keep the selection in sight")
        #expect(view.handle(.character("q"), visibleRows: 2) == .quit)
        #expect(view.handle(.interrupt, visibleRows: 2) == .quit)
    }

    @Test func aClickSelectsARowAndASecondFollowsIt() {
        var view = Self.view()
        _ = view.handle(.click(x: 5, y: LogsRenderer.tableTop + 2), visibleRows: 20)
        #expect(view.selected == 2 && view.following == nil)
        _ = view.handle(.click(x: 5, y: LogsRenderer.tableTop + 2), visibleRows: 20)
        #expect(view.following == LoggedID(.vehicle, "vehicle-2"))
    }

    @Test(arguments: [(19, 24), (80, 5), (1, 1), (0, 0)])
    func aTinyTerminalSaysSo(_ width: Int, _ height: Int) {
        let canvas = LogsRenderer.render(Self.view(), width: width, height: height)
        #expect(canvas.width == width && canvas.height == height)
        if width >= 14 && height > 0 { #expect(canvas.lines.first?.hasPrefix("tokendash logs") == true) }
    }

    @Test func anEmptyExportSaysSo() {
        var reader = ExportReader()
        var source = MemoryChunkSource(Array("[]".utf8))
        reader.read(&source, name: "empty.json")
        let lines = LogsRenderer.render(LogsView(LogSummary(reader), source: "empty.json"), width: 80, height: 24).lines
        #expect(lines[0].contains("no entries"))
        #expect(lines[LogsRenderer.tableTop].contains("no IDs in the export"))
    }
}
