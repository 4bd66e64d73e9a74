import Foundation
import ProviderVocabulary
import Redaction
import Testing

@testable import Dashboard
@testable import UICore

/// Marks (`m`), freeze (`z`) and snapshots (`s`): the evidence keys.
@Suite(.timeLimit(.minutes(15))) struct EvidenceTests {
    func key(_ state: inout DashboardState, _ k: Key) -> [Effect] { Fixtures.apply(&state, .key(k)) }
    func type(_ state: inout DashboardState, _ text: String) {
        for c in text { _ = key(&state, .character(c)) }
    }

    @Test func aMarkTakesANoteAndIsMadeByItsAnswer() {
        var s = Fixtures.running()
        #expect(key(&s, .character("m")) == [])
        #expect(s.overlay == .mark(""))
        // Free text, unlike an ID prompt: spaces and punctuation are a note's words.
        type(&s, "backend redeployed!")
        _ = key(&s, .backspace)
        #expect(s.overlay == .mark("backend redeployed"))
        let effects = key(&s, .enter)
        let mark = Mark(number: 1, at: s.now, note: "backend redeployed")
        #expect(effects == [.addMark(mark)])
        #expect(s.overlay == .none)
        #expect(s.marks.isEmpty, "the mark is made by its answer, so a replay does not make it twice")
        Fixtures.apply(&s, .marked(mark))
        #expect(s.marks == [mark])
        #expect(s.message == "mark 1 at 08:00:15: backend redeployed")
        // The same mark again (a replay after a seek) is not a second one.
        Fixtures.apply(&s, .marked(mark))
        #expect(s.marks.count == 1)
        // An empty note is a mark without one, numbered after the last.
        _ = key(&s, .character("m"))
        #expect(key(&s, .enter) == [.addMark(Mark(number: 2, at: s.now, note: nil))])
        _ = key(&s, .character("m"))
        _ = key(&s, .escape)
        #expect(s.overlay == .none)
    }

    @Test func aLongNoteIsRefusedWithTheReason() {
        var s = Fixtures.running()
        _ = key(&s, .character("m"))
        type(&s, String(repeating: "a", count: Mark.noteLimit))
        _ = key(&s, .character("b"))
        #expect(
            s.overlay
                == .mark(String(repeating: "a", count: Mark.noteLimit), note: "at most 80 characters: \"b\" not added"))
    }

    @Test func marksShowOnTheTimelinesAxis() {
        var s = GoldenFrameTests.history()
        Fixtures.apply(&s, .marked(Mark(number: 1, at: Fixtures.t0.addingTimeInterval(95), note: "outage")))
        let text = Fixtures.text(s, 160, 48)
        let axis = text.split(separator: "\n").filter { $0.contains("marks ▲") }
        // Side by side, one row holds both panes' axes: each carries the mark.
        #expect(axis.count == 1)
        #expect(axis.first?.components(separatedBy: "▲1").count == 3)
        // A mark made just now sits at the right edge: its number goes before it.
        s.marks = [Mark(number: 7, at: s.now)]
        #expect(Fixtures.text(s, 160, 48).contains("─7▲ │"), "the \"now\" label gives way")
        s.marks = []
        #expect(!Fixtures.text(s, 160, 48).contains("▲"))
    }

    @Test func aFrozenScreenHoldsItsPictureAndCountsWhatCameSince() {
        var s = Fixtures.running()
        let before = Fixtures.text(s)
        _ = key(&s, .character("z"))
        let frozenHeader = Fixtures.text(s).split(separator: "\n")[0]
        #expect(frozenHeader.contains("❄ FROZEN at 08:00:15 · 0 events since (z resumes)"))
        // Events and time go on underneath; the picture does not move.
        let token = Fixtures.token(.consumer, id: "trip-0001", issued: Fixtures.t0.addingTimeInterval(20))
        Fixtures.apply(&s, Fixtures.event(.consumer, "trip-0001", .fetchStarted(reason: .forced), at: 20))
        Fixtures.apply(&s, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.01), at: 20.1))
        Fixtures.apply(&s, .tick(Fixtures.t0.addingTimeInterval(25)))
        #expect(s.consumer.token?.fingerprint == token.fingerprint, "the state took the new token")
        let frozen = Fixtures.text(s)
        #expect(frozen.split(separator: "\n")[0].contains("2 events since"))
        #expect(
            Array(frozen.split(separator: "\n").dropFirst()) == Array(before.split(separator: "\n").dropFirst()),
            "everything below the header is the picture at the freeze")
        #expect(!frozen.contains(token.fingerprint))
        // Overlays still open over it, and name what they act on: the live focus.
        _ = key(&s, .tab)
        _ = key(&s, .character("i"))
        #expect(Fixtures.text(s).contains("new vehicle ID: █"))
        #expect(Fixtures.text(s).contains("┌─ ▶ Driver"), "the focus shown is the one keys act on")
        _ = key(&s, .escape)
        _ = key(&s, .tab)
        _ = key(&s, .character("?"))
        #expect(Fixtures.text(s).contains("any key closes this help"))
        _ = key(&s, .escape)
        _ = key(&s, .character("z"))
        #expect(s.message == "unfrozen: 2 events came in while frozen")
        #expect(Fixtures.text(s).contains(token.fingerprint))
    }

    @Test func aSnapshotIsTheShownScreenRedacted() throws {
        var s = Fixtures.running()
        s.screenWidth = 100
        s.screenHeight = 30
        _ = key(&s, .character("x"))
        #expect(s.reveal)
        let effects = key(&s, .character("s"))
        guard case .writeSnapshot(let request)? = effects.first else {
            Issue.record("no snapshot effect: \(effects)")
            return
        }
        #expect(request.at == s.now)
        #expect(request.screen.count == 30 && request.width == 100)
        let whole = try #require(s.consumer.token?.token)
        let text = request.screen.joined(separator: "\n")
        #expect(!text.contains(whole), "a revealed token stays out of a snapshot")
        #expect(!text.contains("REVEALED"))
        #expect(text.contains(TokenRedactor.redact(whole)) || text.contains(s.consumer.token?.fingerprint ?? "-"))
        #expect(request.screen.allSatisfy { !$0.hasSuffix(" ") }, "trailing blanks trimmed")
        // Frozen: the snapshot is the picture shown.
        _ = key(&s, .character("z"))
        Fixtures.apply(&s, .tick(Fixtures.t0.addingTimeInterval(40)))
        guard case .writeSnapshot(let frozen)? = key(&s, .character("s")).first else {
            Issue.record("no snapshot effect while frozen")
            return
        }
        #expect(frozen.screen[0].contains("FROZEN at 08:00:15"))
    }
}
