import Dashboard
import Fleet
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import Redaction
import Synchronization
import TestSupport
import Testing
import TokenReading
import UICore

@testable import DashboardRuntime

/// The loop driven through a fake terminal and a test clock: what is batched, drawn, dispatched and woken.
@Suite(.timeLimit(.minutes(15))) struct DashboardLoopTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Effects the loop dispatched, kept in order; `answer` says what each sends back to the inbox.
    final class Dispatched: Sendable {
        // Guards the list: dispatch may be called from the loop while the test reads it.
        private let effects = Mutex<[Effect]>([])
        var all: [Effect] { effects.withLock { $0 } }
        func record(_ e: Effect) { effects.withLock { $0.append(e) } }
    }

    struct Rig {
        let clock = ManualClock(DashboardLoopTests.t0)
        let inbox = ActionInbox()
        let dispatched = Dispatched()
        let terminal: FakeTerminal
        let loop: DashboardLoop

        init(
            script: [Key?] = [], trips: Int = 1, colors: Int = 256,
            terminated: @escaping @Sendable () -> Bool = { false },
            answer: @escaping @Sendable (Effect) -> [Action] = { _ in [] }
        ) {
            terminal = FakeTerminal(script: script, clock: clock, colors: colors)
            var state = DashboardState(
                consumerID: "trip-0001", driverID: "vehicle-0001", now: DashboardLoopTests.t0,
                backend: "test", faultsAvailable: true,
                themeNames: ["default", "high-contrast"], trips: trips, vehicles: 1)
            state.timeZone = TimeZone(identifier: "UTC") ?? .current
            let inbox = self.inbox
            let dispatched = self.dispatched
            loop = DashboardLoop(state: state, terminal: terminal, inbox: inbox, clock: clock, terminated: terminated) {
                effect in
                dispatched.record(effect)
                for action in answer(effect) { inbox.send(action) }
            }
            loop.start()
        }
    }

    @Test func aPasteIsAppliedInBatchesWithOneFramePerBatch() {
        // 99 reveal toggles queued at once: 64 are taken before the first frame, the rest before the second.
        let rig = Rig(script: Array(repeating: .character("x"), count: 99))
        #expect(rig.loop.step())
        #expect(rig.terminal.script.count == 35)
        #expect(rig.terminal.frames.count == 1)
        #expect(rig.loop.state.reveal == false, "64 toggles")
        #expect(rig.loop.step())
        #expect(rig.terminal.script.isEmpty)
        #expect(rig.terminal.frames.count == 2)
        #expect(rig.loop.state.reveal, "99 toggles")
        // The same state again draws nothing.
        rig.terminal.script = [.character("x"), .character("x")]
        #expect(rig.loop.step())
        #expect(rig.terminal.frames.count == 2)
    }

    @Test func aBatchStopsAtAResizeAndTheNextFrameIsWholeAtTheNewSize() {
        let rig = Rig(script: [.character("x"), .resize, .character("x")])
        rig.terminal.size = (80, 24)
        #expect(rig.loop.step())
        #expect(rig.terminal.script == [.character("x")], "the key after the resize waits for the next turn")
        #expect(rig.terminal.invalidations == 1)
        #expect(rig.terminal.lastFrame?.width == 80)
        #expect(rig.terminal.lastFrame?.height == 24)
        #expect(rig.loop.state.reveal)
        // A resize alone changes no state, yet is drawn.
        rig.terminal.script = [.resize]
        rig.terminal.size = (60, 20)
        let before = rig.terminal.frames.count
        #expect(rig.loop.step())
        #expect(rig.terminal.frames.count == before + 1)
        #expect(rig.terminal.lastFrame?.width == 60)
        // Resized away and back within one turn: the size and the state are as last drawn, but
        // the terminal's screen is not, so the frame is drawn again, whole (the stress test's
        // storm once ended on a blank screen with only changed cells on it).
        rig.terminal.script = [.resize]
        #expect(rig.loop.step())
        #expect(rig.terminal.frames.count == before + 2)
        #expect(rig.terminal.invalidations == 3)
    }

    @Test func nothingIsDrawnUntilTheSecondTurns() {
        let rig = Rig()
        #expect(rig.loop.step())
        #expect(rig.terminal.frames.count == 1, "the first frame")
        // Eight more quiet waits of 100 ms: same second, nothing visible changed.
        for _ in 0..<8 { #expect(rig.loop.step()) }
        #expect(rig.terminal.frames.count == 1)
        #expect(rig.terminal.waits.allSatisfy { $0 == DashboardLoop.keyTimeoutMilliseconds })
        // The tenth wait turns the second: a tick, and the clock on screen moves.
        #expect(rig.loop.step())
        #expect(rig.terminal.frames.count == 2)
        #expect(abs(rig.loop.state.now.timeIntervalSince(Self.t0) - 1) < 0.001)
        #expect(rig.terminal.lastFrame?.lines.first?.hasSuffix("08:00:01") == true)
    }

    @Test func effectsCarryTheFollowedMemberAndTheirAnswersWakeTheLoop() {
        let rig = Rig(
            script: [.character("]"), .character("]"), .character("r")], trips: 5,
            answer: { effect in
                if case .follow(let kind, let index) = effect {
                    return [.following(kind, index: index, member: MemberSnapshot(id: "trip-000\(index + 1)"))]
                }
                return []
            })
        #expect(rig.loop.step())
        #expect(
            rig.dispatched.all == [
                .follow(.consumer, index: 1), .follow(.consumer, index: 2), .forceRefresh(.consumer, member: 2),
            ])
        // The answers are queued and the terminal woken: the next wait ends at once, no time passes.
        let clockBefore = rig.clock.now()
        #expect(rig.loop.step())
        #expect(rig.terminal.waits.last == 0)
        #expect(rig.clock.now() == clockBefore)
        #expect(
            rig.loop.state.consumer.id == "trip-0003", "the stale answer for member 1 is dropped, member 2's applies")
        #expect(rig.terminal.lastFrame?.lines.contains { $0.contains("trip-0003") } == true)
    }

    @Test func theThemeIsTheStatesAndReachesTheTerminalOnce() {
        let contrast = Theme(name: "high-contrast", styles: [.text: ThemeStyle(foreground: .index(15))])
        let rig = Rig(
            script: [.character("T")],
            answer: { effect in
                effect == .loadTheme("high-contrast") ? [.themeLoaded(contrast)] : []
            })
        #expect(rig.loop.step())
        #expect(rig.dispatched.all == [.loadTheme("high-contrast")])
        #expect(rig.terminal.themes.map(\.name) == ["default"])
        #expect(rig.loop.step())
        #expect(rig.loop.state.themeName == "high-contrast")
        #expect(rig.terminal.themes == [Theme(name: "default", styles: [:]), contrast])
        #expect(rig.terminal.lastFrame?.lines.first?.contains("theme: high-contrast") == true)
        #expect(rig.loop.step())
        #expect(rig.terminal.themes.count == 2, "set once, not every frame")
    }

    @Test func providerEventsFromTheInboxShowInTheNextFrame() {
        let rig = Rig()
        #expect(rig.loop.step())
        rig.inbox.send(
            .event(
                ProviderEvent(
                    time: Self.t0, provider: .driver, id: "vehicle-0001", kind: .fetchStarted(reason: .noToken))))
        #expect(rig.loop.step())
        #expect(rig.terminal.waits.last == 0, "sending woke the wait")
        #expect(rig.loop.state.driver.counters.requests == 1)
        #expect(rig.terminal.frames.count == 2)
    }

    @Test func qQuitsWithoutAnotherFrameAndGivesTheTerminalBack() {
        let rig = Rig(script: [.character("q")])
        #expect(rig.loop.step() == false)
        #expect(rig.terminal.frames.isEmpty, "no frame drawn on the way out")
        #expect(rig.dispatched.all.isEmpty, "quitting is the loop's, not an effect to run")
        rig.loop.finish()
        #expect(rig.terminal.stopped)
    }

    @Test func aSignalEndsTheLoopAtOnceAndRestoresTheTerminal() async {
        let stop = Mutex(false)
        let clock = ManualClock(Self.t0)
        let terminal = FakeTerminal(clock: clock)
        let inbox = ActionInbox()
        let state = DashboardState(
            consumerID: "trip-0001", driverID: "vehicle-0001", now: Self.t0, backend: "test", faultsAvailable: false)
        let loop = DashboardLoop(
            state: state, terminal: terminal, inbox: inbox, clock: clock, terminated: { stop.withLock { $0 } },
            dispatch: { _ in }
        )
        loop.start()
        #expect(loop.step())
        stop.withLock { $0 = true }
        inbox.wake()
        #expect(loop.step() == false)
        loop.finish()
        #expect(terminal.stopped)
        #expect(terminal.frames.count == 1)
    }

    @Test func aTerminalWithoutColoursMarksTheStateColourless() {
        let rig = Rig(colors: 0)
        #expect(rig.loop.step())
        #expect(rig.loop.state.colorless)
        #expect(rig.terminal.lastFrame?.lines.first?.contains("(no colour)") == true)
    }
}

/// `y` puts the focused token on the terminal's clipboard: redacted unless revealed.
@Suite(.timeLimit(.minutes(15))) struct CopyTests {
    @Test func yCopiesRedactedThenWholeOnceRevealed() throws {
        let rig = DashboardLoopTests.Rig(script: [.character("y")])
        #expect(rig.loop.step())
        #expect(rig.terminal.clipboard.isEmpty, "no token yet")
        #expect(rig.loop.state.message == "no token to copy yet")
        let t0 = DashboardLoopTests.t0
        let iat = Int(t0.timeIntervalSince1970)
        let jwt = TestJWT.make(kind: .consumer, id: "trip-0001", iat: iat, exp: iat + 3600)
        let token = FetchedToken(
            token: jwt, id: "trip-0001", expiresAt: t0.addingTimeInterval(3600), receivedAt: t0,
            jwt: try JWTInspector.decode(jwt))
        rig.inbox.send(
            .event(ProviderEvent(time: t0, provider: .consumer, id: "trip-0001", kind: .fetched(token, latency: 0.01))))
        rig.terminal.script = [.character("y")]
        #expect(rig.loop.step())
        #expect(rig.terminal.clipboard == [TokenRedactor.redact(jwt)])
        #expect(rig.dispatched.all.isEmpty, "the terminal's job, not an effect runner's")
        rig.terminal.script = [.character("x"), .character("y")]
        #expect(rig.loop.step())
        #expect(rig.terminal.clipboard.last == jwt)
        #expect(rig.terminal.lastFrame?.lines.first?.contains("REVEALED") == true)
    }
}

/// A click focuses the pane under it, placed with the layout of the terminal's current size.
@Suite(.timeLimit(.minutes(15))) struct ClickTests {
    @Test(arguments: [(160, 48, 120, 10), (100, 30, 10, 25)])
    func aClickOnThePaneFocusesIt(_ width: Int, _ height: Int, _ x: Int, _ y: Int) {
        let rig = DashboardLoopTests.Rig(script: [.click(x: x, y: y)])
        rig.terminal.size = (width, height)
        #expect(rig.loop.step())
        #expect(rig.loop.state.focus == .driver)
        rig.terminal.script = [.click(x: 2, y: 3)]
        #expect(rig.loop.step())
        #expect(rig.loop.state.focus == .consumer)
        // On the header or the footer, nothing.
        rig.terminal.script = [.click(x: x, y: 0), .click(x: x, y: height - 1)]
        #expect(rig.loop.step())
        #expect(rig.loop.state.focus == .consumer)
    }

    /// The loop places a click with the frame it drew last: a notice that came since moved the
    /// panes down a line, but the click lands on the pane the user saw there.
    @Test func aClickLandsOnWhatWasDrawnThoughTheLayoutMovedSince() {
        let rig = DashboardLoopTests.Rig()
        rig.terminal.size = (160, 48)
        #expect(rig.loop.step())
        #expect(rig.terminal.lastFrame?.lines[1].contains("Driver") == true, "the driver pane's top border on line 1")
        rig.inbox.send(.message("a notice above the panes"))
        rig.terminal.script = [.click(x: 120, y: 1)]
        #expect(rig.loop.step())
        #expect(rig.loop.state.focus == .driver)
        // Now drawn with the notice, line 1 is the notice: a click there lands on no pane.
        #expect(rig.terminal.lastFrame?.lines[1].contains("a notice above the panes") == true)
        rig.terminal.script = [.click(x: 2, y: 1)]
        #expect(rig.loop.step())
        #expect(rig.loop.state.focus == .driver)
    }
}
