import Dashboard
import Faults
import KeyTable
import ProviderVocabulary
import Testing
import UICore

/// The fault menu and the scenario menu are one list menu over the key map's menu keys: a remap
/// reaches both, their hints name the keys in effect, and the old keys stop working.
@Suite(.timeLimit(.minutes(15))) struct MenuKeyTests {
    static func remapped() throws -> KeyMap {
        try KeyMap(remapping: [
            .menuDown: [.character("n")], .menuClose: [.character("x")], .latencyUp: [.character("+")],
        ])
    }

    @Test func aRemapReachesTheFaultMenu() throws {
        var s = Fixtures.running()
        s.keys = try Self.remapped()
        _ = Fixtures.apply(&s, .key(.character("f")))
        _ = Fixtures.apply(&s, .key(.character("j")))
        #expect(s.overlay == .faults(selection: 0, scope: .consumer), "j no longer moves the highlight")
        _ = Fixtures.apply(&s, .key(.character("n")))
        #expect(s.overlay == .faults(selection: 1, scope: .consumer))
        _ = Fixtures.apply(&s, .key(.character("+")))
        #expect(s.faultLatencyMilliseconds == 3500)
        let text = Fixtures.text(s)
        #expect(text.contains("↑/n and Enter, or 0-9; x closes"), "\(text)")
        #expect(text.contains("latency (3.5 s per request; < + adjust)"))
        #expect(Fixtures.apply(&s, .key(.enter)) == [.setFault(.http500, .consumer, latencyMilliseconds: 3500)])
        _ = Fixtures.apply(&s, .key(.character("f")))
        _ = Fixtures.apply(&s, .key(.escape))
        #expect(s.overlay != .none, "Esc no longer closes")
        _ = Fixtures.apply(&s, .key(.character("x")))
        #expect(s.overlay == .none)
    }

    @Test func aRemapReachesTheScenarioMenu() throws {
        var s = ScenarioDashboardTests.listed()
        s.keys = try Self.remapped()
        _ = Fixtures.apply(&s, .key(.character("S")))
        _ = Fixtures.apply(&s, .key(.character("n")))
        #expect(s.overlay == .scenarios(selection: 1))
        #expect(Fixtures.text(s).contains("↑/n and Enter starts or acts; Space steps; P pauses; x closes"))
        _ = Fixtures.apply(&s, .key(.character("x")))
        #expect(s.overlay == .none)
        _ = Fixtures.apply(&s, .key(.character("S")))
        _ = Fixtures.apply(&s, .key(.character("S")))
        #expect(s.overlay == .none, "the menu's own key closes it")
    }

    @Test func menuKeysMayShareKeysWithTheMainTableButNotWithEachOther() {
        #expect(throws: KeyMapError.conflict(key: .character("j"), remapped: .menuUp, taken: .menuDown)) {
            try KeyMap(remapping: [.menuUp: [.character("j")]])
        }
        #expect(throws: Never.self) { try KeyMap(remapping: [.menuChoose: [.character("r")]]) }
    }
}
