import Dashboard
import Foundation
import ProviderVocabulary
import Recording
import ThreadExecutor
import UICore

/// The UI loop: waits for a key (with a timeout, so it never spins, and woken early by the inbox),
/// applies keys and queued actions through the reducer, hands effects to the performer, and draws
/// when what is visible changed. Every terminal call happens on the thread that runs it.
public final class DashboardLoop {
    /// Longest wait for a key; ticks and a resize ncurses noticed between keys show within it.
    public static let keyTimeoutMilliseconds = 100
    /// Most keys applied before a frame is drawn; bounded so a flood of input still shows progress.
    public static let keysPerFrame = 64

    public private(set) var state: DashboardState
    /// Frames drawn so far; tests read it to see that nothing is drawn for nothing.
    public private(set) var framesDrawn = 0

    private let terminal: any TerminalBackend
    private let inbox: ActionInbox
    private let dispatch: @Sendable (Effect) -> Void
    private let clock: any ProviderClock
    private let terminated: @Sendable () -> Bool
    private var drawn: (state: DashboardState, width: Int, height: Int)?
    private let memo = RenderMemo()
    /// Where a click on the frame last drawn lands: the viewer clicks on what they see.
    private var clicks: ClickMap?
    private var appliedTheme: Theme?
    private var lastSecond = Int.min
    /// `--record`: told every action the loop applies, with the loop's time, before applying it.
    public var recorder: (any ActionRecorder)?
    /// `--cast`: told every action, as `recorder` is, and every frame drawn.
    public var frames: (any FrameRecorder)?
    /// Whether the loop sends itself a tick each second of its clock. A replay turns this off:
    /// its ticks are the recorded ones, so the state's clock is the recorded time.
    public var ticks = true

    /// `dispatch` runs an effect away from the UI thread and sends its answers to `inbox`;
    /// `performing(_:inbox:)` makes one from a performer.
    public init(
        state: DashboardState, terminal: any TerminalBackend, inbox: ActionInbox,
        clock: any ProviderClock = SystemClock(), terminated: @escaping @Sendable () -> Bool = { false },
        dispatch: @escaping @Sendable (Effect) -> Void
    ) {
        self.state = state
        self.terminal = terminal
        self.inbox = inbox
        self.clock = clock
        self.terminated = terminated
        self.dispatch = dispatch
    }

    /// Effects run as tasks on the performer; their answers go to the inbox, which wakes the loop.
    public static func performing(_ performer: any EffectPerformer, inbox: ActionInbox) -> @Sendable (Effect) -> Void {
        { effect in
            Task {
                for action in await performer.perform(effect) { inbox.send(action) }
            }
        }
    }

    /// Takes the terminal, runs until the user quits or `terminated` says so, and gives it back.
    @discardableResult
    public func run() -> DashboardState {
        start()
        defer { finish() }
        while step() {}
        return state
    }

    public func start() {
        state.colorless = terminal.start() == 0
        inbox.setWaker(terminal.waker)
    }

    public func finish() {
        inbox.setWaker(nil)
        terminal.stop()
    }

    /// One turn: wait for keys or a wake-up, apply them and what the inbox holds, draw if needed.
    /// Returns false when the loop should end.
    public func step() -> Bool {
        guard !terminated(), !state.quitting else { return false }
        var keys: [Key] = []
        if let key = terminal.readKey(timeoutMilliseconds: Self.keyTimeoutMilliseconds) {
            keys.append(key)
            // A paste queues many keys at once: take what is already queued and draw once,
            // instead of a frame per key (300 pasted keys took 0.8 s). Not past a resize: reading
            // makes ncurses refresh its resized screen, the old frame cut to the new size, and
            // at one column that refresh inserts a stray character (scripts/e2e-terminal-stress.sh).
            while keys.last != .resize, keys.count < Self.keysPerFrame,
                let more = terminal.readKey(timeoutMilliseconds: 0)
            {
                keys.append(more)
            }
        }
        var actions = inbox.drain()
        let size = terminal.size
        // The state holds the size last sent; only a change is news.
        if state.screenWidth != size.width || state.screenHeight != size.height {
            actions.append(.resized(width: size.width, height: size.height))
        }
        for key in keys {
            // A storm of resizes can end at the size last drawn with nothing in the state
            // changed, yet ncurses has cleared its screen on the way: the frame is drawn whole.
            if key == .resize {
                terminal.invalidate()
                drawn = nil
            }
            actions.append(.key(key))
        }
        let now = clock.now()
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        if ticks, second != lastSecond {
            lastSecond = second
            actions.append(.tick(now))
        }
        for action in actions {
            recorder?.record(action, at: now)
            frames?.record(action, at: now)
            for effect in Reducer.reduce(&state, action, clicks: clicks) {
                switch effect {
                // The terminal's own business, done on its thread.
                case .copyToClipboard(let text): terminal.copyToClipboard(text)
                default: dispatch(effect)
                }
            }
        }
        if terminated() || state.quitting { return false }
        draw()
        return true
    }

    /// Draws when the state or the size changed since the last frame; the theme is the state's.
    private func draw() {
        if appliedTheme != state.theme {
            terminal.setTheme(state.theme)
            appliedTheme = state.theme
            drawn = nil
        }
        let size = terminal.size
        if let drawn, drawn.width == size.width, drawn.height == size.height, drawn.state == state { return }
        let frame = Renderer.frame(state, width: size.width, height: size.height, memo: memo)
        let canvas = frame.canvas
        clicks = frame.clicks
        terminal.draw(canvas)
        frames?.frame(canvas, of: state, at: clock.now())
        drawn = (state, size.width, size.height)
        framesDrawn += 1
    }

    /// Runs `body` on a thread of its own (ncurses wants one thread) and returns when it does.
    public static func onOwnThread<T: Sendable>(name: String = "tokendash-ui", _ body: @escaping @Sendable () -> T)
        async -> T
    {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            let thread = Thread {
                ThreadExecutor.nameCurrentThread(name)
                done.resume(returning: body())
            }
            thread.start()
        }
    }
}
