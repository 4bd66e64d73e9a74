import Faults
import Fleet
import FleetTables
import Foundation
import KeyTable
import ProviderVocabulary
import Redaction
import Testing

@testable import Dashboard
@testable import UICore

@Suite(.timeLimit(.minutes(15))) struct ReducerTests {
    func key(_ state: inout DashboardState, _ k: Key) -> [Effect] { Fixtures.apply(&state, .key(k)) }
    func char(_ state: inout DashboardState, _ c: Character) -> [Effect] { key(&state, .character(c)) }

    @Test func tabMovesFocus() {
        var s = Fixtures.running()
        #expect(s.focus == .consumer)
        _ = key(&s, .tab)
        #expect(s.focus == .driver)
        #expect(Fixtures.text(s).contains("┌─ ▶ Driver (vehicle token)"))
        _ = key(&s, .tab)
        #expect(s.focus == .consumer)
    }

    @Test func refreshKeysAskForRefreshes() {
        var s = Fixtures.running()
        #expect(char(&s, "r") == [.forceRefresh(.consumer)])
        _ = key(&s, .tab)
        #expect(char(&s, "r") == [.forceRefresh(.driver)])
        #expect(char(&s, "R") == [.forceRefresh(.consumer), .forceRefresh(.driver)])
    }

    @Test func tAndVSwitchToTheNextGeneratedID() {
        var s = Fixtures.running()
        #expect(char(&s, "t") == [.switchID(.consumer, "trip-0002")])
        #expect(char(&s, "v") == [.switchID(.driver, "vehicle-0002")])
        #expect(s.focus == .driver)
        // The pane changes when the provider reports the switch.
        Fixtures.apply(
            &s, Fixtures.event(.consumer, "trip-0002", .idChanged(from: "trip-0001", to: "trip-0002"), at: 20))
        #expect(s.consumer.id == "trip-0002")
        #expect(
            s.consumer.history.first
                == IDChange(time: Fixtures.t0.addingTimeInterval(20), from: "trip-0001", to: "trip-0002"))
        #expect(Fixtures.text(s).contains("08:00:20  trip-0001 → trip-0002"))
        #expect(char(&s, "t") == [.switchID(.consumer, "trip-0003")])
    }

    @Test func typingAnID() {
        var s = Fixtures.running()
        _ = char(&s, "i")
        #expect(Fixtures.text(s).contains("new trip ID: █"))
        for c in "my trip/7" { _ = char(&s, c) }
        #expect(s.overlay == .input("my trip7"), "Fleet Engine IDs may hold spaces, not slashes")
        _ = key(&s, .backspace)
        #expect(key(&s, .enter) == [.switchID(.consumer, "my trip")])
        #expect(s.overlay == .none)
        _ = char(&s, "i")
        _ = char(&s, "z")
        #expect(key(&s, .escape) == [])
        #expect(s.overlay == .none)
        #expect(char(&s, "q") == [])
        #expect(s.quitting, "keys work again once the prompt is closed")
    }

    @Test func faultMenuSetsAndClearsFaults() {
        var s = Fixtures.running()
        _ = char(&s, "f")
        #expect(s.overlay == .faults(selection: 0, scope: .consumer))
        #expect(char(&s, "2") == [.setFault(.http500, .consumer)])
        _ = key(&s, .tab)
        _ = char(&s, "f")
        _ = key(&s, .tab)
        for _ in 0..<4 { _ = key(&s, .down) }
        #expect(key(&s, .enter) == [.setFault(.malformed, .both)])
        _ = char(&s, "f")
        #expect(char(&s, "0") == [.setFault(nil, .driver)])
        _ = char(&s, "f")
        #expect(char(&s, "9") == [.setFault(.fleetEngineUnavailable, .driver)])
        // < and > set the latency fault's delay, which travels with the effect and names the fault.
        _ = char(&s, "f")
        _ = char(&s, ">")
        _ = char(&s, ">")
        #expect(char(&s, "1") == [.setFault(.latency, .driver, latencyMilliseconds: 4000)])
        Fixtures.apply(&s, .faultsChanged([.driver: .latency]))
        #expect(Fixtures.text(s).contains("⚠ FAULT driver=latency (4 s per request; < > adjust)"))
        _ = char(&s, "f")
        #expect(char(&s, "4") == [.setFault(.rateLimited, .driver, latencyMilliseconds: 4000)])
        Fixtures.apply(&s, .faultsChanged([.driver: .http500]))
        let header = Renderer.render(s, width: 160, height: 48)
        #expect(header.lines[0].contains("⚠ FAULT driver=HTTP 500 (c clears)"))
        #expect(header[header.lines[0].count - 20, 0].role == .error, "a red banner")
        #expect(char(&s, "c") == [.setFault(nil, .both)], "c clears every fault")
        s.faultsAvailable = false
        #expect(char(&s, "c") == [])
        #expect(s.message == "fault injection needs the embedded token server")
    }

    @Test func revealPauseThemeHelpQuit() {
        var s = Fixtures.running()
        _ = char(&s, "x")
        #expect(s.reveal)
        #expect(char(&s, "p") == [.setPaused(true)])
        #expect(Fixtures.text(s).contains("‖ paused"))
        #expect(char(&s, "p") == [.setPaused(false)])
        #expect(char(&s, "T") == [.loadTheme("high-contrast")])
        Fixtures.apply(&s, .themeLoaded(Theme(name: "high-contrast", styles: [:])))
        #expect(s.themeName == "high-contrast")
        #expect(char(&s, "T") == [.loadTheme("light")])
        #expect(char(&s, "?") == [])
        #expect(s.overlay == .help)
        #expect(char(&s, "q") == [], "in help, a key closes the help")
        #expect(s.overlay == .none)
        #expect(key(&s, .interrupt) == [])
        #expect(s.quitting)
    }

    /// Every key the help lists does what the table says, and nothing else; a key missing from
    /// the table does nothing.
    @Test func everyKeyInTheTableWorks() {
        let fleet = FleetFixtures.state()
        for binding in KeyBinding.table {
            for k in binding.keys {
                // The fleet table's own keys have their own tests (FleetTableTests); here they
                // must at least do something.
                let tableCommands: [Command] = [
                    .nextTrouble, .previousTrouble, .selectUp, .selectDown, .followSelected, .filterTable,
                ]
                if tableCommands.contains(binding.command) {
                    var s = fleet
                    let before = s
                    let effects = key(&s, k)
                    #expect(!effects.isEmpty || s != before, "\(binding.label) did nothing")
                    continue
                }
                var s = binding.fleetOnly ? Fixtures.state(trips: 3, vehicles: 3) : Fixtures.running()
                var expected = s
                let effects: [Effect]
                switch binding.command {
                case .focusNext:
                    expected.focus = .driver
                    effects = []
                case .refreshFocused: effects = [.forceRefresh(.consumer)]
                case .refreshBoth: effects = [.forceRefresh(.consumer), .forceRefresh(.driver)]
                case .newTrip: effects = [.switchID(.consumer, "trip-0002")]
                case .newVehicle:
                    expected.focus = .driver
                    effects = [.switchID(.driver, "vehicle-0002")]
                case .typeID:
                    expected.overlay = .input("")
                    effects = []
                case .faultMenu:
                    expected.overlay = .faults(selection: 0, scope: RoleScope(ProviderKind.consumer))
                    effects = []
                case .toggleReveal:
                    expected.reveal = true
                    effects = []
                case .togglePause:
                    expected.paused = true
                    effects = [.setPaused(true)]
                case .nextTheme: effects = [.loadTheme("high-contrast")]
                case .help:
                    expected.overlay = .help
                    effects = []
                case .clearFaults: effects = [.setFault(nil, .both)]
                case .copyToken:
                    let token = s.consumer.token.map { TokenRedactor.redact($0.token) } ?? ""
                    expected.message =
                        "copied the redacted token (#\(s.consumer.token?.fingerprint ?? "")); press x to reveal, then y, to copy it whole"
                    effects = [.copyToClipboard(token)]
                case .zoomIn:
                    expected.timelineMinutes = 2
                    effects = []
                case .zoomOut:
                    expected.timelineMinutes = 60
                    effects = []
                case .nextFleetMember:
                    expected.consumer.memberIndex = 1
                    effects = [.follow(.consumer, index: 1)]
                case .previousFleetMember:
                    expected.consumer.memberIndex = 2
                    effects = [.follow(.consumer, index: 2)]
                case .quit:
                    expected.quitting = true
                    effects = []
                case .mark:
                    expected.overlay = .mark("")
                    effects = []
                // Tested on their own (EvidenceTests): a freeze is a new picture, a snapshot a rendered screen.
                case .nextTrouble, .previousTrouble, .selectUp, .selectDown, .followSelected, .filterTable, .freeze,
                    .snapshot:
                    continue
                // Only in a replay (ReplayKeyTests).
                case .replayPause, .replayStep, .replayBack, .replayForward, .replayStart, .replayEnd, .replaySpeed:
                    continue
                // Shown and working only with scenarios: ScenarioDashboardTests.
                case .scenarioMenu, .scenarioStep, .scenarioPause: continue
                // Only in an open list menu (MenuKeyTests).
                case .menuUp, .menuDown, .menuChoose, .menuClose, .faultScope, .latencyDown, .latencyUp: continue
                }
                #expect(key(&s, k) == effects, "\(binding.label) (\(k))")
                #expect(s == expected, "\(binding.label) (\(k))")
            }
        }
        var s = Fixtures.running()
        let before = s
        #expect(char(&s, "%") == [])
        #expect(s == before)
    }

    @Test func fleetKeysFollowOtherMembers() {
        var s = Fixtures.state(trips: 3, vehicles: 2)
        // Every press moves one member, before any answer is back: the state owns the index.
        #expect(char(&s, "]") == [.follow(.consumer, index: 1)])
        #expect(char(&s, "]") == [.follow(.consumer, index: 2)])
        #expect(char(&s, "[") == [.follow(.consumer, index: 1)])
        #expect(char(&s, "[") == [.follow(.consumer, index: 0)])
        #expect(char(&s, "[") == [.follow(.consumer, index: 2)], "wraps around")
        #expect(char(&s, "r") == [.forceRefresh(.consumer, member: 2)], "effects act on the followed member")
        // An answer for a member already left behind is dropped.
        Fixtures.apply(&s, .following(.consumer, index: 1, member: MemberSnapshot(id: "trip-0002")))
        #expect(s.consumer.id == "trip-0001")
        Fixtures.apply(&s, .following(.consumer, index: 2, member: MemberSnapshot(id: "trip-0003")))
        #expect(s.consumer.id == "trip-0003")
        // Events of other trips in the fleet do not touch the followed pane.
        Fixtures.apply(&s, Fixtures.event(.consumer, "trip-0002", .fetchStarted(reason: .noToken)))
        #expect(s.consumer.counters.requests == 0)
        Fixtures.apply(&s, Fixtures.event(.consumer, "trip-0003", .fetchStarted(reason: .noToken)))
        #expect(s.consumer.counters.requests == 1)
        // Without a fleet those keys are not bound.
        var single = Fixtures.running()
        #expect(char(&single, "]") == [])
    }

    @Test func repeatedCacheHitsFoldIntoOneLine() {
        var s = Fixtures.state()
        for i in 0..<40 {
            Fixtures.apply(&s, Fixtures.event(.consumer, "trip-0001", .cacheHit(expiresAt: Fixtures.t0), at: Double(i)))
        }
        #expect(s.consumer.log.count == 1)
        #expect(s.consumer.log[0].count == 40)
        Fixtures.apply(&s, Fixtures.event(.consumer, "trip-0001", .fetchStarted(reason: .refreshAhead), at: 41))
        Fixtures.apply(&s, Fixtures.event(.consumer, "trip-0001", .cacheHit(expiresAt: Fixtures.t0), at: 42))
        #expect(s.consumer.log.map(\.count) == [1, 1, 40])
        #expect(Fixtures.text(s).contains("08:00:39  cache hit ×40"))
    }

    @Test func logAndHistoryStayBounded() {
        var s = Fixtures.state()
        for i in 0..<2_000 {
            let id = "trip-\(i)"
            Fixtures.apply(&s, Fixtures.event(.consumer, id, .idChanged(from: "trip-\(i - 1)", to: id), at: Double(i)))
            Fixtures.apply(&s, Fixtures.event(.consumer, id, .fetchStarted(reason: .idChanged), at: Double(i)))
        }
        #expect(s.consumer.log.count == PaneState.historyLimit)
        #expect(s.consumer.history.count == PaneState.historyLimit)
        #expect(s.consumer.history.first?.to == "trip-1999")
        #expect(s.consumer.fetchesPerMinute.count <= PaneState.sparklineMinutes)
    }

    @Test func eventsOfTheOtherKindAreIgnored() {
        var s = Fixtures.state()
        Fixtures.apply(
            &s,
            Fixtures.event(
                .driver, "vehicle-0001", .fetched(Fixtures.token(.driver, id: "vehicle-0001"), latency: 0.01)))
        #expect(s.consumer.token == nil)
        #expect(s.driver.token?.id == "vehicle-0001")
    }
}

/// The ID prompt says what it did with each key.
@Suite(.timeLimit(.minutes(15))) struct IDPromptTests {
    func type(_ text: String, into s: inout DashboardState) {
        for c in text { Fixtures.apply(&s, .key(.character(c))) }
    }

    @Test func aRefusedCharacterIsNamed() {
        var s = Fixtures.running()
        Fixtures.apply(&s, .key(.character("i")))
        // Fleet Engine takes spaces and other scripts in an ID; only / : ? , # are refused.
        type("ab/ é", into: &s)
        #expect(s.overlay == .input("ab é"), "the next accepted key clears the note")
        type("#", into: &s)
        #expect(s.overlay == .input("ab é", note: "\"#\" is not allowed in a Fleet Engine ID (none of / : ? , #)"))
        #expect(Fixtures.text(s, 80, 24).contains("\"#\" is not allowed in a Fleet Engine ID"))
        Fixtures.apply(&s, .key(.character("\u{1}")))
        #expect(s.overlay == .input("ab é", note: "\"Ctrl-A\" is a control key, not part of an ID"))
    }

    @Test func theLimitIsSaidAndCtrlUClears() {
        var s = Fixtures.running()
        Fixtures.apply(&s, .key(.character("i")))
        type(String(repeating: "a", count: Reducer.idLimit - 1), into: &s)
        type("b", into: &s)
        #expect(
            s.overlay
                == .input(String(repeating: "a", count: Reducer.idLimit - 1) + "b", note: "64 characters: the limit"))
        type("c", into: &s)
        #expect(
            s.overlay
                == .input(
                    String(repeating: "a", count: Reducer.idLimit - 1) + "b",
                    note: "at most 64 characters: \"c\" not added"))
        // The prompt shows the end of a long ID, where the typing is.
        #expect(Fixtures.text(s, 80, 24).contains("aaab█"))
        Fixtures.apply(&s, .key(.character("\u{15}")))
        #expect(s.overlay == .input(""))
    }

    @Test func anEmptyEnterSaysUnchanged() {
        var s = Fixtures.running()
        Fixtures.apply(&s, .key(.character("i")))
        #expect(Fixtures.apply(&s, .key(.enter)) == [])
        #expect(s.message == "trip ID unchanged (trip-0001)")
        #expect(Fixtures.text(s).contains("trip ID unchanged (trip-0001)"))
    }
}

/// Long IDs give way in their middle wherever they show, so what follows them stays in view.
@Suite(.timeLimit(.minutes(15))) struct LongIDTests {
    @Test func theStatusAndTheNewIDStayVisible() {
        var s = Fixtures.running()
        let long = "trip-" + String(repeating: "x", count: 100) + "-end"
        // 80 columns, a few rows more than the minimum so the log has room.
        Fixtures.apply(&s, .following(.consumer, index: 0, member: MemberSnapshot(id: long)))
        Fixtures.apply(&s, Fixtures.event(.consumer, long, .idChanged(from: "trip-0001", to: long), at: 15))
        Fixtures.apply(
            &s,
            Fixtures.event(
                .consumer, long,
                .fetched(
                    Fixtures.token(.consumer, id: long, issued: Fixtures.t0.addingTimeInterval(15)), latency: 0.01),
                at: 15))
        let text = Fixtures.text(s, 80, 30)
        #expect(text.contains("Trip ID    trip-xxxxxxxxxxxxxxxxxxxxxxxx…xxxxxxxxxxxxxxxxxxxxxxxxx-end  ● ok"))
        #expect(text.contains("ID                      trip-0001 → trip-xxxxxxx…xxxxxxx-end"))
        let wide = Fixtures.text(s, 160, 48)
        #expect(wide.contains("08:00:15  trip-0001 → trip-xxxxxxxxxx…xxxxxxxxxxx-end"))
    }
}

/// Every key of the table is in the footer at the minimum size, on two rows when one is not
/// enough, three in a fleet.
@Suite(.timeLimit(.minutes(15))) struct FooterTests {
    @Test(arguments: [false, true])
    func everyKeyShowsAt80x24(_ fleet: Bool) {
        let s = fleet ? Fixtures.state(trips: 3, vehicles: 3) : Fixtures.running()
        let lines = Renderer.render(s, width: 80, height: 24).lines
        let footer = lines.suffix(fleet ? 3 : 2).joined(separator: "\n")
        #expect(footer.hasPrefix("Tab Focus"), "the footer is \(fleet ? 3 : 2) rows")
        let visible = KeyMap.standard.visible(fleet: fleet).filter {
            $0.command != .newTrip && $0.command != .newVehicle
        }
        // Pairs show as one ("]/[ Member"); the table's keys are on the table's border.
        for binding in KeyBinding.paired(visible.filter { !$0.inTable }) {
            #expect(footer.contains("\(binding.label) \(binding.hint)"), "\(binding.label) \(binding.hint) missing")
        }
        let text = lines.joined(separator: "\n")
        for binding in KeyBinding.paired(visible.filter(\.inTable)) {
            #expect(
                text.contains("\(binding.label) \(binding.hint)"),
                "\(binding.label) \(binding.hint) missing from the table")
        }
        #expect(footer.contains("t Trip") && footer.contains("v Vehicle"))
    }
}

/// `--only driver`: one pane, and keys for the other side say why they do nothing.
@Suite(.timeLimit(.minutes(15))) struct OnlyOneSideTests {
    @Test func theOtherSidesKeysAreRefusedWithAReason() {
        var s = Fixtures.running()
        s.runOnly(.driver)
        #expect(s.focus == .driver)
        #expect(Fixtures.apply(&s, .key(.character("t"))) == [])
        #expect(s.message == "only the driver runs (--only driver)")
        #expect(Fixtures.apply(&s, .key(.tab)) == [])
        #expect(s.focus == .driver)
        #expect(Fixtures.apply(&s, .key(.character("R"))) == [.forceRefresh(.driver)])
        #expect(Fixtures.apply(&s, .key(.character("v"))) == [.switchID(.driver, "vehicle-0002")])
        let text = Fixtures.text(s)
        #expect(text.contains("Vehicle ID"))
        #expect(!text.contains("Trip ID"))
    }
}

/// A click on a row of the fleet table selects that member.
@Suite(.timeLimit(.minutes(15))) struct TableClickTests {
    @Test func aClickSelectsTheRowUnderIt() throws {
        var s = FleetFixtures.state()
        Fixtures.apply(&s, .resized(width: 160, height: 48))
        let frame = try #require(Layout.of(s, width: 160, height: 48)?.table?.rect)
        let rows = s.tables[s.focus]?.rows ?? []
        try #require(rows.count >= 3)
        Fixtures.apply(&s, .key(.click(x: 10, y: frame.y + 2 + 2)))
        #expect(s.tables[s.focus]?.selected == rows[2].index)
        // The frame that is drawn marks the same row as selected.
        let canvas = Renderer.render(s, width: 160, height: 48)
        #expect(canvas[10, frame.y + 4].role == .selected)
        // The header line of the table selects nothing.
        Fixtures.apply(&s, .key(.click(x: 10, y: frame.y + 1)))
        #expect(s.tables[s.focus]?.selected == rows[2].index)
    }

    /// With the map of the frame drawn, a click selects the row the user saw under it, though a
    /// notice has moved the table down a line since; without it, the row above.
    @Test func aClickSelectsTheRowDrawnThoughTheTableMovedSince() throws {
        var s = FleetFixtures.state()
        Fixtures.apply(&s, .resized(width: 160, height: 48))
        let drawn = Renderer.frame(s, width: 160, height: 48)
        let frame = try #require(Layout.of(s, width: 160, height: 48)?.table?.rect)
        let rows = s.tables[s.focus]?.rows ?? []
        try #require(rows.count >= 3)
        Fixtures.apply(&s, .message("a notice above the table"))
        #expect(Layout.of(s, width: 160, height: 48)?.table?.rect.y == frame.y + 1)
        var placedNow = s
        _ = Reducer.reduce(&s, .key(.click(x: 10, y: frame.y + 2 + 2)), clicks: drawn.clicks)
        #expect(s.tables[s.focus]?.selected == rows[2].index)
        _ = Reducer.reduce(&placedNow, .key(.click(x: 10, y: frame.y + 2 + 2)))
        #expect(placedNow.tables[placedNow.focus]?.selected == rows[1].index)
        // A map of another screen size places nothing of its own: the click is placed on the layout now.
        var resized = s
        Fixtures.apply(&resized, .resized(width: 150, height: 48))
        _ = Reducer.reduce(&resized, .key(.click(x: 10, y: frame.y + 2 + 1)), clicks: drawn.clicks)
        #expect(resized.tables[resized.focus]?.selected == rows[0].index)
    }
}
