import Dashboard
import Foundation
import ProviderVocabulary
import Recording
import Synchronization
import UICore

/// What `dashboard` and `replay` both do once their first state and their effect performer are
/// ready: effects dispatched to the performer, a signal (SIGINT, SIGTERM, SIGHUP) ending the loop
/// as `q` does, and the terminal made, run and given back on a thread of its own. One copy, so the
/// two commands cannot drift apart in how they take and leave the terminal.
public enum TerminalBootstrap {
    /// Runs the loop until the user quits or `nextSignal` returns, and returns the last state.
    /// `terminal` is called on the UI thread, which then owns it (ncurses is made, used and ended
    /// there); `nextSignal` is awaited once, and its return, a signal's number or nil, ends the loop.
    /// `ticks` off: a replay's ticks come from the recording, so the state's clock is the recorded one.
    @discardableResult
    public static func run(
        state: DashboardState, inbox: ActionInbox, performer: any EffectPerformer,
        recorder: (any ActionRecorder & Sendable)? = nil, frames: (any FrameRecorder & Sendable)? = nil,
        ticks: Bool = true,
        clock: any ProviderClock = SystemClock(),
        nextSignal: @escaping @Sendable () async -> Int32?,
        terminal: @escaping @Sendable () -> any TerminalBackend
    ) async -> DashboardState {
        // Set by the signal's task, read by the loop on the UI thread at each turn.
        let terminated = Mutex(false)
        let signalTask = Task {
            _ = await nextSignal()
            terminated.withLock { $0 = true }
            inbox.wake()
        }
        let dispatch = DashboardLoop.performing(performer, inbox: inbox)
        let last = await DashboardLoop.onOwnThread {
            let loop = DashboardLoop(
                state: state, terminal: terminal(), inbox: inbox, clock: clock,
                terminated: { terminated.withLock { $0 } }, dispatch: dispatch)
            loop.recorder = recorder
            loop.frames = frames
            loop.ticks = ticks
            return loop.run()
        }
        signalTask.cancel()
        return last
    }
}
