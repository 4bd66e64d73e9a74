import Dashboard
import Foundation
import ProviderVocabulary
import Redaction
import TestSupport
import Testing
import UICore

@testable import DashboardRuntime
@testable import Evidence
@testable import Recording

/// Evidence from a session: the live cast (`--cast`) and the recording's cast (`replay --to-cast`)
/// show what the dashboard showed, with their markers; the report (`report`) holds the verdicts,
/// tables, marks and frames; neither holds a whole token, revealed or not.
@Suite(.timeLimit(.minutes(15))) struct CastAndReportTests {
    /// The recorded session of `RecordReplayTests`, with a mark and a token revealed on screen,
    /// cast live as it ran.
    static func session() throws -> (rig: RecordReplayTests.LiveRig, cast: String, tokens: [String]) {
        let rig = try RecordReplayTests.LiveRig()
        let castPath = rig.path + ".cast"
        let cast = try LiveCast(
            path: castPath, start: RecordReplayTests.t0, theme: Theme(name: "default", styles: [:]),
            idleTimeLimit: 2, title: "test session", environment: ["TERM": "xterm-256color", "SHELL": "/bin/bash"])
        rig.loop.frames = cast
        try rig.playSession(closing: false)
        rig.step(
            at: 31,
            [.marked(Mark(number: 1, at: RecordReplayTests.t0.addingTimeInterval(31), note: "customer saw the 403"))])
        rig.step(at: 32, key: .character("x"))
        rig.step(at: 33)
        rig.writer.close()
        #expect(cast.close() == nil)
        defer { try? FileManager.default.removeItem(atPath: castPath) }
        let tokens = try [
            RecordReplayTests.token(.consumer, id: "trip-0001", issued: rig.t(1)).token,
            RecordReplayTests.token(.driver, id: "vehicle-0001", issued: rig.t(1)).token,
        ]
        return (rig, try String(contentsOfFile: castPath, encoding: .utf8), tokens)
    }

    /// A cast's header and events, as a player reads them.
    static func parse(_ cast: String) throws -> (header: [String: Any], events: [(Double, String, String)]) {
        let lines = cast.split(separator: "\n")
        let first = try #require(lines.first)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let events = try lines.dropFirst().map { line -> (Double, String, String) in
            let array = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])
            return (
                try #require(array[0] as? Double), try #require(array[1] as? String), try #require(array[2] as? String)
            )
        }
        return (header, events)
    }

    /// The screen a terminal shows after `output`: enough of one (cursor moves, SGR, clear) for
    /// the encoder's own output; pyte checks it as a real terminal in the end-to-end tests.
    static func screen(_ output: String, width: Int, height: Int) -> [String] {
        var grid = Array(repeating: Array(repeating: Character(" "), count: width), count: height)
        var x = 0
        var y = 0
        var scalars = output.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\u{1B}" else {
                if y < height, x < width { grid[y][x] = Character(scalar) }
                x += 1
                continue
            }
            guard scalars.popFirst() == "[" else { continue }
            var parameters = ""
            while let next = scalars.popFirst() {
                if next.properties.isAlphabetic {
                    if next == "H" {
                        let parts = parameters.split(separator: ";").compactMap { Int($0) }
                        (y, x) = (max(0, (parts.first ?? 1) - 1), max(0, (parts.dropFirst().first ?? 1) - 1))
                    } else if next == "J" {
                        grid = Array(repeating: Array(repeating: " ", count: width), count: height)
                    }
                    break
                }
                parameters.unicodeScalars.append(next)
            }
        }
        return grid.map { row in String(String(row).reversed().drop { $0 == " " }.reversed()) }
    }

    /// Three base64url segments: a whole JWT.
    static var wholeJWT: Regex<Substring> { /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ }

    @Test func theLiveCastIsTheFramesDrawnWithMarkersAndNoWholeTokenEvenRevealed() throws {
        let (rig, text, tokens) = try Self.session()
        let (header, events) = try Self.parse(text)
        #expect(header["version"] as? Int == 2 && header["width"] as? Int == 100 && header["height"] as? Int == 30)
        #expect(header["timestamp"] as? Int == Int(RecordReplayTests.t0.timeIntervalSince1970))
        #expect(header["idle_time_limit"] as? Double == 2 && header["title"] as? String == "test session")
        #expect((header["env"] as? [String: String]) == ["TERM": "xterm-256color", "SHELL": "/bin/bash"])
        let theme = try #require(header["theme"] as? [String: String])
        #expect(theme["palette"]?.split(separator: ":").count == 16 && theme["bg"] == "#000000")
        let markers = events.filter { $0.1 == "m" }.map(\.2)
        #expect(markers.contains("trip ID trip-0001 → trip-0002"))
        #expect(markers.contains("fault on: consumer HTTP 500"))
        #expect(markers.contains("mark 1: customer saw the 403"))
        #expect(markers.contains("token revealed on screen: written here redacted"))
        #expect(markers.contains { $0.hasPrefix("Fleet Engine disagrees: UpdateVehicle 403 PERMISSION_DENIED") })
        // The frames add up to the screen the user saw last, less the revealed token.
        let output = events.filter { $0.1 == "o" }.map(\.2).joined()
        var unrevealed = rig.loop.state
        unrevealed.reveal = false
        #expect(
            Self.screen(output, width: 100, height: 30) == Renderer.render(unrevealed, width: 100, height: 30).lines)
        #expect(rig.loop.state.reveal)
        for token in tokens { #expect(!text.contains(token) && text.contains(TokenRedactor.redact(token))) }
        #expect(text.firstMatch(of: Self.wholeJWT) == nil)
    }

    @Test func aRecordingsCastShowsTheReplaysFrameAtEachMarker() throws {
        let (rig, _, _) = try Self.session()
        let recording = try Recording.read(rig.path)
        let (header, events) = try Self.parse(
            RecordingCast.make(recording, options: .init(theme: Theme(name: "default", styles: [:]))))
        #expect(header["width"] as? Int == 100 && header["height"] as? Int == 30 && header["idle_time_limit"] == nil)
        let timeline = ReplayTimeline(recording, initial: recording.header.initialState())
        let markers = events.enumerated().filter { $0.element.1 == "m" }
        #expect(markers.count >= 4)
        for (index, marker) in markers {
            let shown = events[..<index].filter { $0.1 == "o" }.map(\.2).joined()
            let replayed = timeline.fold(to: recording.start.addingTimeInterval(marker.0 + 1e-6)).state
            #expect(
                Self.screen(shown, width: 100, height: 30) == Renderer.render(replayed, width: 100, height: 30).lines,
                "at \(marker.2)")
        }
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.0 <= $1.0 }, "a cast's times never go back")
    }

    /// A recording's frames are rendered in batches on every core, each core a run of them
    /// encoded against the frame before: the cast is the same byte for byte whatever the batch,
    /// one frame at a time included, with resizes and theme changes inside runs and between them.
    @Test func aRecordingsCastIsTheSameWhateverItsBatch() throws {
        let rig = try RecordReplayTests.LiveRig()
        try rig.playSession(closing: false)
        for (second, size) in [(34.0, (80, 24)), (36.0, (100, 30)), (36.5, (90, 30))] {
            rig.step(at: second - 0.6)
            rig.step(at: second - 0.3)
            rig.terminal.size = size
            rig.step(at: second)
            rig.step(at: second + 0.2)
        }
        rig.writer.close()
        let recording = try Recording.read(rig.path)
        func cast(_ batch: Int) -> String {
            var options = RecordingCast.Options(theme: Theme(name: "default", styles: [:]))
            options.batch = batch
            return RecordingCast.make(recording, options: options)
        }
        let whole = cast(1_000)
        let events = try Self.parse(whole).events
        #expect(events.filter { $0.1 == "o" }.count > 7, "frames enough to split")
        #expect(events.filter { $0.1 == "r" }.map(\.2) == ["80x24", "100x30", "90x30"])
        for batch in [1, 2, 3, 5, 7] {
            let same = cast(batch) == whole
            #expect(same, "batches of \(batch)")
        }
    }

    /// A frame in other colours (a theme loaded, colour lost) is drawn whole, inside a run or at
    /// its start: the frames are the same whatever the batch.
    @Test func framesInOtherColoursAreTheSameWhateverTheBatch() throws {
        let rig = try RecordReplayTests.LiveRig()
        try rig.playSession(closing: false)
        var bright = ThemeStyle()
        bright.foreground = .index(15)
        let plain = rig.loop.state
        var themed = plain
        themed.theme = Theme(name: "high-contrast", styles: [.text: bright, .header: bright])
        var colorless = plain
        colorless.colorless = true
        var later = plain
        _ = Reducer.reduce(&later, .tick(RecordReplayTests.t0.addingTimeInterval(40)))
        let states = [plain, later, themed, themed, plain, colorless, later, colorless, themed, later, plain]
        func frames(_ batch: Int) -> String {
            var frames = CastFrames(theme: plain.theme, batch: batch)
            for (index, state) in states.enumerated() {
                if index == 4 { frames.resize(width: 90, height: 30, at: Double(index) - 0.5) }
                frames.frame(state, width: index < 4 ? 100 : 90, height: 30, at: Double(index))
            }
            return frames.text()
        }
        let whole = frames(1_000)
        #expect(whole.contains(#"\u001b[0;97m"#), "the theme's colours")
        for batch in [1, 2, 3, 4, 6] {
            let same = frames(batch) == whole
            #expect(same, "batches of \(batch)")
        }
    }

    /// Moments every 10 ms make at most ten frames a second; a marked moment keeps its time; the
    /// last moment's state is the last frame, drawn when it was due.
    @Test func aCastsFramesAreAtMostTenASecondAndTheLastStateIsDrawn() {
        var pacer = RecordingCast.FramePacer<Int>()
        var frames: [(Int, Double)] = []
        for moment in 0..<200 {
            let seconds = Double(moment) / 100
            if let (held, due) = pacer.heldDue(before: seconds) { frames.append((held, due)) }
            if pacer.drawsNow(at: seconds, forced: moment == 55, state: moment) { frames.append((moment, seconds)) }
        }
        if let (held, due) = pacer.heldDue(before: .infinity) { frames.append((held, due)) }
        #expect(frames.count <= 22, "\(frames.count) frames in 2 s")
        #expect(frames.contains { $0 == (55, 0.55) }, "the marked moment drawn at its own time")
        #expect(frames.last?.0 == 199, "the last state reaches the cast")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.1 <= $1.1 }, "times never go back")
        for (earlier, later) in zip(frames, frames.dropFirst()) where later.0 != 55 {
            #expect(later.1 - earlier.1 >= 0.1 - 1e-9 || earlier.0 == 55, "\(earlier) then \(later)")
        }
    }

    @Test func theReportHoldsVerdictsTablesMarksAndFramesAndNoWholeToken() throws {
        let (rig, _, tokens) = try Self.session()
        let page = HTMLReport.make(
            try Recording.read(rig.path), theme: Theme(name: "default", styles: [:]), name: "session.jsonl",
            version: "tokendash test")
        #expect(
            page.hasPrefix("<!DOCTYPE html>") && page.contains("prefers-color-scheme: dark")
                && page.contains("@media print"))
        #expect(page.contains("Trouble: 1 of 2 token requests failed"), "the driver's verdict")
        #expect(page.contains("<svg class=\"timeline\"") && page.contains("<title id=\"timeline-title\">"))
        #expect(page.contains("<td>PERMISSION_DENIED</td>") && page.contains("<tr class=\"disagree\">"))
        #expect(page.contains("Note: customer saw the 403") && page.contains("<pre class=\"frame t-default\""))
        #expect(page.contains("<th scope=\"row\">exp</th>") && page.contains(Rule.lifetime.source))
        #expect(!page.contains("src=") && !page.contains("href=") && !page.contains("url("), "nothing is loaded")
        for token in tokens { #expect(!page.contains(token)) }
        #expect(page.firstMatch(of: Self.wholeJWT) == nil)
    }

    @Test func aCutRecordingIsSaidOnThePageAndNothingPartialIsLeft() throws {
        let (rig, _, _) = try Self.session()
        var text = try String(contentsOfFile: rig.path, encoding: .utf8)
        let lines = text.split(separator: "\n").count
        text += "{\"t\":40,\"ev"
        try text.write(toFile: rig.path, atomically: true, encoding: .utf8)
        let page = HTMLReport.make(
            try Recording.read(rig.path), theme: Theme(name: "default", styles: [:]), name: rig.path, version: "t")
        #expect(page.contains("Cut short:</strong> \(rig.path):\(lines + 1): truncated or garbled last line"))
        #expect(throws: EvidenceError.cannotWrite("/nonexistent/dir/r.html", "No such file or directory")) {
            try EvidenceFile.write(page, to: "/nonexistent/dir/r.html")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("evidence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try EvidenceFile.write(page, to: folder.appendingPathComponent("r.html").path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["r.html"])
    }
}
