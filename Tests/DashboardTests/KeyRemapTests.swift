import Foundation
import KeyTable
import ProviderVocabulary
import Testing
import UICore

@testable import Dashboard

/// A remapped key table (as a config file's `keys:` makes it) is the one table the footer, the
/// help and the handling read.
@Suite(.timeLimit(.minutes(15))) struct KeyRemapTests {
    /// r and R swapped (still a pair: "R/r Refresh"), help on h, quit on Q.
    static func remapped() throws -> KeyMap {
        try KeyMap(remapping: [
            .refreshFocused: [.character("R")], .refreshBoth: [.character("r")],
            .help: [.character("h")], .quit: [.character("Q")], .toggleReveal: [.character("X")],
        ])
    }

    static func state() throws -> DashboardState {
        var state = Fixtures.running()
        state.keys = try remapped()
        return state
    }

    @Test func theFooterShowsTheRemappedKeys() throws {
        try GoldenFrameTests().check("remapped-keys", Self.state(), 80, 24)
        let footer = Fixtures.text(try Self.state(), 80, 24).split(separator: "\n").suffix(2).joined(separator: "\n")
        #expect(footer.contains("R/r Refresh") && footer.contains("h Help") && footer.contains("Q Quit"), "\(footer)")
        #expect(!footer.contains("? Help") && !footer.contains("q Quit"))
        #expect(Fixtures.text(try Self.state(), 80, 24).contains("(X reveals)"), "the pane names the remapped key too")
    }

    @Test func theHelpShowsTheRemappedKeys() throws {
        var state = try Self.state()
        Fixtures.apply(&state, .key(.character("h")))
        #expect(state.overlay == .help)
        try GoldenFrameTests().check("remapped-help", state, 80, 24)
    }

    @Test func theRemappedKeyDoesTheCommandAndTheOldOneNoLonger() throws {
        var state = try Self.state()
        #expect(
            Fixtures.apply(&state, .key(.character("R"))) == [.forceRefresh(.consumer, member: 0)],
            "R now refreshes the focused pane")
        #expect(Fixtures.apply(&state, .key(.character("r"))).count == 2, "r now refreshes both")
        #expect(
            Fixtures.apply(&state, .key(.character("?"))) == [] && state.overlay == .none, "? no longer opens the help")
        #expect(Fixtures.apply(&state, .key(.character("q"))) == [] && !state.quitting, "q no longer quits")
        Fixtures.apply(&state, .key(.character("Q")))
        #expect(state.quitting)
    }

    /// The fleet table's own keys, hinted on its border, follow the remapped table too.
    @Test func theFleetTableBorderAndHandlingFollowTheRemap() throws {
        var state = FleetFixtures.state()
        state.keys = try KeyMap(remapping: [.filterTable: [.character("F")]])
        let text = Fixtures.text(state, 160, 48)
        #expect(text.contains(" F Filter") && !text.contains(" / Filter"), "\(text)")
        Fixtures.apply(&state, .key(.character("/")))
        #expect(state.overlay == .none)
        Fixtures.apply(&state, .key(.character("F")))
        #expect(state.overlay == .filter(""))
    }

    @Test func ctrlCStillQuitsWhateverQuitIsOn() throws {
        var state = try Self.state()
        Fixtures.apply(&state, .key(.interrupt))
        #expect(state.quitting)
    }

    @Test func aMessageNamesTheRemappedKeys() throws {
        var state = Fixtures.running()
        state.keys = try KeyMap(remapping: [.toggleReveal: [.character("X")], .copyToken: [.character("Y")]])
        let effects = Fixtures.apply(&state, .key(.character("Y")))
        #expect(effects.count == 1)
        #expect(
            state.message?.contains("press X to reveal, then Y, to copy it whole") == true, "\(state.message ?? "")")
    }

    @Test func aKeyTakenByAnotherCommandIsAConflict() {
        #expect(throws: KeyMapError.conflict(key: .character("R"), remapped: .refreshFocused, taken: .refreshBoth)) {
            try KeyMap(remapping: [.refreshFocused: [.character("R")]])
        }
        let error = KeyMapError.conflict(key: .character("R"), remapped: .refreshFocused, taken: .refreshBoth)
        #expect(
            error.description
                == "key R for refresh is already bound to refresh-both; remap refresh-both too to swap them")
    }

    @Test func everyCommandHasADistinctName() {
        #expect(Set(Command.allCases.map(\.rawValue)).count == Command.allCases.count)
        #expect(
            Set((KeyBinding.table + KeyBinding.replayRows + KeyBinding.menuRows).map(\.command))
                == Set(Command.allCases), "every command has a row to remap")
    }

    @Test func keyNames() {
        #expect(Key(name: "Z") == .character("Z"))
        #expect(Key(name: "tab") == .tab && Key(name: "Enter") == .enter && Key(name: "space") == .character(" "))
        #expect(Key(name: "F13") == nil && Key(name: "") == nil && Key(name: "ctrl-c") == nil)
    }
}

/// A drawer that keeps a `RenderMemo` (the live loop, a cast's renderers) draws the frame it
/// would draw without one, as the inputs the footer is made from change under it.
@Suite(.timeLimit(.minutes(15))) struct RenderMemoTests {
    @Test func aFrameDrawnWithTheMemoIsTheFrameDrawnWithout() throws {
        let running = Fixtures.running()
        let remapped = try KeyRemapTests.state()
        let fleet = FleetFixtures.state()
        let tap = TapFixtures.state()
        var replay = running
        replay.replay = ReplayStatus(position: Fixtures.t0, start: Fixtures.t0, end: Fixtures.t0.addingTimeInterval(60))
        // Each change alone, then back: a memo that missed any input would show the last footer.
        let frames: [(DashboardState, Int, Int)] = [
            (running, 160, 48), (running, 160, 48), (running, 80, 24), (remapped, 80, 24), (running, 80, 24),
            (fleet, 80, 24), (tap, 80, 24), (tap, 160, 48), (running, 160, 48), (remapped, 100, 30),
            (replay, 100, 30), (running, 100, 30),
        ]
        let memo = RenderMemo()
        var footers: Set<String> = []
        for (state, width, height) in frames {
            let drawn = Renderer.render(state, width: width, height: height, memo: memo)
            let plain = Renderer.render(state, width: width, height: height)
            #expect(drawn.lines == plain.lines, "\(width)x\(height)")
            let sameRoles = drawn == plain
            #expect(sameRoles, "\(width)x\(height): the same text in other colours")
            footers.insert(plain.lines.suffix(2).joined(separator: "\n"))
        }
        #expect(footers.count >= 5, "the frames' footers differ, so a stale one would show")
    }

    /// The fetch log's rows kept between frames follow the log: a hit counted on its top line, a
    /// new line on top, a failure, another ID's log, another zone, another width.
    @Test func theFetchLogDrawnWithTheMemoIsTheLogDrawnWithout() throws {
        var state = Fixtures.running()
        let memo = RenderMemo()
        var logs: Set<String> = []
        func check(_ note: String, _ width: Int = 160, _ height: Int = 48) {
            let drawn = Renderer.render(state, width: width, height: height, memo: memo)
            let plain = Renderer.render(state, width: width, height: height)
            #expect(drawn.lines == plain.lines, "\(note)")
            let sameRoles = drawn == plain
            #expect(sameRoles, "\(note): the same text in other colours")
            logs.insert(plain.lines.joined(separator: "\n"))
        }
        check("first")
        check("again")
        Fixtures.apply(
            &state,
            Fixtures.event(
                .driver, "vehicle-0001", .cacheHit(count: 7, expiresAt: Fixtures.t0.addingTimeInterval(60)), at: 20))
        check("a hit counted on the top line")
        Fixtures.apply(&state, Fixtures.event(.driver, "vehicle-0001", .fetchStarted(reason: .refreshAhead), at: 21))
        Fixtures.apply(
            &state,
            Fixtures.event(
                .driver, "vehicle-0001", .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.004), at: 22))
        check("new lines on top")
        for (second, count) in [(22.5, 1), (22.7, 3), (22.9, 5)] {
            Fixtures.apply(
                &state,
                Fixtures.event(
                    .driver, "vehicle-0001", .cacheHit(count: count, expiresAt: Fixtures.t0.addingTimeInterval(60)),
                    at: second))
            check("hits after the failure, counted on one top line (\(count))")
        }
        check("fewer rows", 160, 30)
        check("more rows again")
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(23)))
        check("a tick")
        state.timeZone = try #require(TimeZone(identifier: "Asia/Kolkata"))
        check("another zone")
        check("another width", 120, 40)
        check("back", 160, 48)
        Fixtures.apply(&state, .key(.character("v")))
        check("another vehicle's log")
        #expect(logs.count >= 10, "the frames differ, so a stale row would show")
    }
}
