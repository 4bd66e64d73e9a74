import Foundation
import ProviderVocabulary
import Testing

@testable import Dashboard
@testable import UICore

/// The scenario banner, the S menu and the keys that drive a scenario.
@Suite(.timeLimit(.minutes(15))) struct ScenarioDashboardTests {
    static let entries = [
        ScenarioEntry(
            name: "refresh-ahead",
            description: "tokens are replaced before they expire, while the old one is still served"),
        ScenarioEntry(
            name: "backend-outage",
            description: "the backend fails with HTTP 500; the providers back off, keep the valid token, recover"),
    ]

    static func listed() -> DashboardState {
        var s = Fixtures.running()
        s.scenarios = entries
        return s
    }

    static func running(_ phase: ScenarioBanner.Phase = .waiting("backing_off driver"), stepMode: Bool = false)
        -> DashboardState
    {
        var s = listed()
        Fixtures.apply(
            &s,
            .scenario(
                ScenarioBanner(
                    name: "backend-outage", step: 5, count: 9,
                    caption: "A refresh fails; the provider backs off before it tries again",
                    phase: phase, stepMode: stepMode)))
        return s
    }

    static func finished() -> DashboardState {
        running(
            .finished(
                ending:
                    "Shown: while the backend failed, the providers backed off (1 s, 2 s, 4 s... between attempts) instead of hammering it, kept serving the valid token until it expired, and got a new one on the first attempt after the backend recovered."
            ))
    }

    func key(_ state: inout DashboardState, _ key: Key) -> [Effect] { Fixtures.apply(&state, .key(key)) }

    @Test func sListsTheScenariosAndEnterStartsOne() {
        var none = Fixtures.running()
        let before = none
        #expect(key(&none, .character("S")) == [])
        #expect(none == before, "S does nothing in a run without scenarios")

        var s = Self.listed()
        #expect(key(&s, .character("S")) == [])
        #expect(s.overlay == .scenarios(selection: 0))
        #expect(key(&s, .down) == [])
        #expect(key(&s, .enter) == [.startScenario("backend-outage")])
        #expect(s.overlay == .none)
    }

    @Test func theMenuControlsTheRunningScenario() {
        var s = Self.running()
        _ = key(&s, .character("S"))
        #expect(s.scenarioMenuRows.prefix(3) == [.control(.togglePause), .control(.restart), .control(.stop)])
        #expect(key(&s, .enter) == [.scenarioControl(.togglePause)])
        _ = key(&s, .character("S"))
        _ = key(&s, .down)
        #expect(key(&s, .enter) == [.scenarioControl(.restart)])
        _ = key(&s, .character("S"))
        #expect(key(&s, .escape) == [])
        #expect(s.overlay == .none)
    }

    @Test func spaceAndPActOnlyWhileAScenarioRuns() {
        var idle = Self.listed()
        #expect(key(&idle, .character(" ")) == [])
        #expect(key(&idle, .character("P")) == [])
        var s = Self.running(.awaitingStep, stepMode: true)
        #expect(key(&s, .character(" ")) == [.scenarioControl(.advance)])
        #expect(key(&s, .character("P")) == [.scenarioControl(.togglePause)])
        // Finished: nothing left to step; S still offers a restart.
        var done = Self.finished()
        #expect(key(&done, .character(" ")) == [])
        _ = key(&done, .character("S"))
        #expect(key(&done, .enter) == [.scenarioControl(.restart)])
    }

    @Test func aStepThatPausesTheSDKsShowsInTheHeader() {
        var s = Self.running()
        Fixtures.apply(&s, .sdksPaused(true))
        #expect(s.paused)
        // A scenario's latency fault is named with its own delay.
        Fixtures.apply(&s, .faultLatency(milliseconds: 5000))
        Fixtures.apply(&s, .faultsChanged([.consumer: .latency]))
        #expect(Fixtures.text(s).contains("consumer=latency (5 s per request"))
        Fixtures.apply(&s, .scenario(nil))
        #expect(s.scenario == nil)
        #expect(!Fixtures.text(s).contains("backend-outage"))
    }

    @Test func theBannerSaysNameStepCaptionAndWait() {
        let text = Fixtures.text(Self.running(), 160, 48).split(separator: "\n")
        #expect(
            text[1].hasPrefix(
                " ▶ backend-outage │ step 5/9 │ A refresh fails; the provider backs off before it tries again │ waiting for backing_off driver"
            ))
        let paused = Fixtures.text(Self.running(.paused), 160, 48).split(separator: "\n")
        #expect(paused[1].contains("‖ paused (P resumes)"))
        // The panes move down a line for it.
        let layout = Layout.of(Self.running(), width: 160, height: 48)
        #expect(layout?.panes.first?.rect.y == 2)
    }

    @Test func goldenFrames() throws {
        let golden = GoldenFrameTests()
        try golden.check("scenario-banner", Self.running(), 160, 48)
        try golden.check("scenario-banner", Self.running(.awaitingStep, stepMode: true), 80, 24)
        try golden.check("scenario-finished", Self.finished(), 160, 48)
        try golden.check("scenario-finished", Self.finished(), 80, 24)
        var menu = Self.running()
        _ = key(&menu, .character("S"))
        _ = key(&menu, .down)
        try golden.check("scenario-menu", menu, 160, 48)
        try golden.check("scenario-menu", menu, 80, 24)
    }
}
