import Dashboard
import Faults
import Fleet
import FleetTables
import Foundation
import KeyTable
import Pacing
import ProviderEvents
import ProviderVocabulary
import Testing
import UICore

/// What happened (`SessionState`) and how one person looks at it (`ViewerState`) are apart: a
/// freeze holds the whole session, and in a replay the viewer's keys change only the viewer.
@Suite(.timeLimit(.minutes(15))) struct StateSplitTests {
    /// A session that differs from `base` in every stored field, each checked by name below, so a
    /// field added to `SessionState` fails this test until it is set here, and then shows whether
    /// a freeze holds it.
    static func changedEverywhere(_ base: SessionState) -> SessionState {
        var s = base
        s.consumer.id = "trip-9999"
        s.driver.id = "vehicle-9999"
        s.paused.toggle()
        s.now = base.now.addingTimeInterval(3600)
        s.backend = "elsewhere"
        s.insecure.toggle()
        s.faultsAvailable.toggle()
        s.activeFaults = [.driver: .drop]
        s.faultLatencyMilliseconds = 7500
        s.refreshMargin = base.refreshMargin + 1
        s.updateInterval = 42
        s.only = .driver
        s.providerLogic = .objcSample
        s.sourceLabels = [.driver: "your code: P.swift"]
        s.fleet = [
            .consumer: FleetSummary(
                providers: 7, requestsPerSecond: 1, counters: ProviderCounters(), p50LatencyMs: nil, p99LatencyMs: nil,
                inRefreshMargin: 0)
        ]
        s.rampPace = Pacer.Status(rate: 1, ceiling: 2, floor: 1, reason: .givingWay, inFlight: 0, active: true)
        s.fleetTables = [.consumer: FleetTable(filter: "x")]
        s.marks = [Mark(number: 1, at: base.now, note: "n")]
        s.scenario = ScenarioBanner(name: "s", step: 1, count: 2, caption: "c", phase: .running, stepMode: false)
        s.scenarios = [ScenarioEntry(name: "e", description: "d")]
        return s
    }

    static func fields(_ s: SessionState) -> [(String, String)] {
        Mirror(reflecting: s).children.map { ($0.label ?? "?", String(reflecting: $0.value)) }
    }

    @Test func aFreezeHoldsEveryFieldOfTheSession() {
        var s = Fixtures.running()
        let held = s.session
        _ = Fixtures.apply(&s, .key(.character("z")))
        s.session = Self.changedEverywhere(held)
        for ((name, before), (_, after)) in zip(Self.fields(held), Self.fields(s.session)) {
            #expect(before != after, "the fixture leaves SessionState.\(name) unchanged: set it in changedEverywhere")
        }
        let shown = s.shown.session
        for ((name, frozen), (_, onScreen)) in zip(Self.fields(held), Self.fields(shown)) {
            #expect(frozen == onScreen, "a frozen screen shows the live \(name)")
        }
        #expect(s.shown.viewer == s.viewer, "the viewer's own look, size and theme stay live")
        _ = Fixtures.apply(&s, .key(.character("z")))
        #expect(s.shown.session == s.session)
    }

    static func replaying() -> DashboardState {
        var s = Fixtures.running()
        s.replay = ReplayStatus(position: Fixtures.t0, start: Fixtures.t0, end: Fixtures.t0.addingTimeInterval(60))
        return s
    }

    /// Every key a replay's viewer may press (none of the live-only ones) leaves the session alone.
    @Test func aReplayViewersKeysChangeOnlyTheViewer() {
        for binding in KeyMap.standard.visible(fleet: false, replay: true) {
            for key in binding.keys {
                var s = Self.replaying()
                let session = s.session
                _ = Fixtures.apply(&s, .key(key))
                #expect(
                    s.session == session,
                    "\(key.displayName) (\(binding.command.rawValue)) changed the session in a replay")
            }
        }
    }

    /// Decided: a recorded key acts on the recorded person's viewer. The screen follows the
    /// recorded look (focus, overlays, zoom) until the viewer changes the look with a key of
    /// their own; from then on recorded keys still change the session, never the viewer's look.
    @Test func recordedKeysMoveTheRecordedLookWhichTheViewerFollowsUntilTakingOver() {
        var s = Self.replaying()
        _ = Fixtures.apply(&s, .recorded(.key(.tab)))
        #expect(s.focus == .driver, "following the recording: its Tab moved the focus")
        _ = Fixtures.apply(&s, .recorded(.key(.character("i"))))
        #expect(s.overlay == .input(""), "the recorded ID prompt shows")
        _ = Fixtures.apply(&s, .recorded(.key(.character("p"))))
        #expect(!s.paused, "a p typed into the recorded prompt is text, not a pause")
        #expect(s.overlay == .input("p"))
        _ = Fixtures.apply(&s, .recorded(.key(.escape)))

        _ = Fixtures.apply(&s, .key(.character("+")))
        #expect(!s.viewer.followsRecording, "the viewer's own zoom takes the look over")
        #expect(
            s.message == "your own view from now: the recording's focus and overlays no longer move it",
            "and says so once")
        _ = Fixtures.apply(&s, .recorded(.key(.tab)))
        #expect(s.focus == .driver, "a recorded Tab no longer moves this viewer's focus")
        #expect(s.recorded?.look.focus == .consumer, "it moved the recorded one")
        _ = Fixtures.apply(&s, .recorded(.key(.character("p"))))
        #expect(s.paused, "a recorded p still paused the SDKs of the session")
    }
}
