import Dashboard
import DashboardRuntime
import Foundation
import ProviderVocabulary
import Recording
import Synchronization
import Testing
import UICore

/// The bootstrap `dashboard` and `replay` share, over a fake terminal: effects go to the performer
/// and its answers to the screen, a signal or `q` ends the loop, and the terminal is given back.
@Suite(.timeLimit(.minutes(15))) struct TerminalBootstrapTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func state() -> DashboardState {
        var state = DashboardState(
            consumerID: "trip-0001", driverID: "vehicle-0001", now: t0, backend: "test",
            faultsAvailable: true, themeNames: ["default"], trips: 1, vehicles: 1)
        state.timeZone = TimeZone(identifier: "UTC") ?? .current
        return state
    }

    /// Keeps each effect it is handed and answers every one with the same message.
    struct AnsweringPerformer: EffectPerformer {
        static let answer = "answered by the performer"
        let asked = DashboardLoopTests.Dispatched()
        func perform(_ effect: Effect) async -> [Action] {
            asked.record(effect)
            return [.message(Self.answer)]
        }
    }

    /// Set from the loop's thread, read by the test.
    final class Flag: Sendable {
        // Guards the flag: set on the UI thread, read by the test's task.
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Every action the loop applied, as `--record` is told them.
    final class Recorded: ActionRecorder, Sendable {
        // Guards the list: appended on the UI thread, read by the test's task.
        private let actions = Mutex<[Action]>([])
        func record(_ action: Action, at time: Date) { actions.withLock { $0.append(action) } }
        var all: [Action] { actions.withLock { $0 } }
    }

    @Test func aKeysEffectIsPerformedItsAnswerShownAndASignalEndsTheLoop() async {
        let clock = ManualClock(Self.t0)
        let (signals, signal) = AsyncStream.makeStream(of: Int32.self)
        let performer = AnsweringPerformer()
        let stopped = Flag()
        let initial = Self.state()
        let ended = await TerminalBootstrap.run(
            state: initial, inbox: ActionInbox(), performer: performer, clock: clock,
            nextSignal: {
                for await number in signals { return number }
                return nil
            },
            terminal: {
                let terminal = FakeTerminal(script: [.character("r")], clock: clock)
                // The signal comes once the answer is on the screen: the fact, not a wait.
                terminal.onDraw = { canvas in
                    if canvas.lines.contains(where: { $0.contains(AnsweringPerformer.answer) }) {
                        signal.yield(SIGTERM)
                    }
                }
                terminal.onStop = { stopped.set() }
                return terminal
            }
        )
        #expect(performer.asked.all == [.forceRefresh(initial.focus, member: 0)])
        #expect(ended.message == AnsweringPerformer.answer)
        #expect(!ended.quitting, "the signal ended the loop, not a key")
        #expect(stopped.isSet, "the terminal was given back")
    }

    @Test func quitEndsTheLoopAndTheRecorderAndTicksAreTheCallers() async {
        // 15 key waits of 100 ms: a second and a half of the test clock passes before `q`.
        let script: [Key?] = Array(repeating: nil, count: 15) + [.character("q")]
        for ticks in [true, false] {
            let clock = ManualClock(Self.t0)
            // No signal comes; the stream ends when the bootstrap cancels its wait.
            let (signals, _) = AsyncStream.makeStream(of: Int32.self)
            let recorded = Recorded()
            let stopped = Flag()
            let ended = await TerminalBootstrap.run(
                state: Self.state(), inbox: ActionInbox(), performer: AnsweringPerformer(),
                recorder: recorded, ticks: ticks, clock: clock,
                nextSignal: {
                    for await number in signals { return number }
                    return nil
                },
                terminal: {
                    let terminal = FakeTerminal(script: script, clock: clock)
                    terminal.onStop = { stopped.set() }
                    return terminal
                }
            )
            #expect(ended.quitting)
            #expect(stopped.isSet)
            #expect(recorded.all.contains(.key(.character("q"))))
            let tickCount = recorded.all.filter { if case .tick = $0 { true } else { false } }.count
            #expect(ticks ? tickCount > 0 : tickCount == 0, "ticks: \(ticks), \(tickCount) recorded")
        }
    }
}
