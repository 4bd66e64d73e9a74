import Dashboard
import UICore
import Foundation
import Terminal

/// The UI thread: waits for a key (with a timeout, so it never spins), applies queued actions,
/// hands effects to the runner, and redraws when something changed or the second turned.
/// All ncurses calls happen on this one thread.
struct UILoop: Sendable {
    /// Longest wait for a key; also the longest delay before a provider event shows.
    static let keyTimeoutMilliseconds: Int32 = 100
    /// Shorter wait while an effect's answer is due (a fleet member's ID, a fault switched), so
    /// its result shows within a few ms of the key instead of at the next 100 ms timeout.
    static let busyTimeoutMilliseconds: Int32 = 5
    static let busyWindow: TimeInterval = 0.5
    /// Most keys applied before a frame is drawn; bounded so a flood of input still shows progress.
    static let keysPerFrame = 64

    let state: DashboardState
    let theme: Theme
    let catalog: ThemeCatalog
    let noColor: Bool
    let inbox: ActionInbox
    let runner: EffectRunner
    let terminated: @Sendable () -> Bool

    /// Runs the loop on a dedicated thread and returns when the user quits or a signal arrives.
    func runOnOwnThread() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                run()
                done.resume()
            }
            thread.name = "tokendash-ui"
            thread.start()
        }
    }

    private func run() {
        let screen = TerminalScreen(theme: theme)
        screen.start(noColor: noColor)
        defer { screen.stop() }
        var state = self.state
        state.colorless = screen.colorCount == 0
        var lastSecond = -1
        var dirty = true
        var lastEffect = Date.distantPast
        while !terminated() && !state.quitting {
            let busy = Date().timeIntervalSince(lastEffect) < Self.busyWindow
            var keys: [Key] = []
            if let key = screen.readKey(timeoutMilliseconds: busy ? Self.busyTimeoutMilliseconds : Self.keyTimeoutMilliseconds) {
                keys.append(key)
                // A paste queues many keys at once: take what is already queued and draw once,
                // instead of a frame per key (300 pasted keys took 0.8 s). Not past a resize: reading
                // makes ncurses refresh its resized screen, the old frame cut to the new size, and
                // at one column that refresh inserts a stray character (scripts/e2e-terminal-stress.sh).
                while keys.last != .resize, keys.count < Self.keysPerFrame, let more = screen.readKey(timeoutMilliseconds: 0) {
                    keys.append(more)
                }
            }
            var actions = inbox.drain()
            for key in keys {
                if key == .resize { screen.invalidate() }
                actions.append(.key(key))
            }
            let now = Date()
            let second = Int(now.timeIntervalSince1970)
            if second != lastSecond {
                lastSecond = second
                actions.append(.tick(now))
            }
            for action in actions {
                for effect in Reducer.reduce(&state, action) {
                    lastEffect = now
                    handle(effect, screen: screen, state: &state)
                }
            }
            dirty = dirty || !actions.isEmpty
            if dirty && !state.quitting {
                let size = screen.size
                screen.draw(Renderer.render(state, width: size.width, height: size.height))
                dirty = false
            }
        }
    }

    private func handle(_ effect: Effect, screen: TerminalScreen, state: inout DashboardState) {
        switch effect {
        case .quit:
            break
        case .loadTheme(let name):
            // Theme files are small and local; loading here keeps the screen and its colours on one thread.
            do {
                screen.setTheme(try catalog.load(name))
                _ = Reducer.reduce(&state, .themeLoaded(name))
            } catch {
                _ = Reducer.reduce(&state, .message("theme \(name): \(error)"))
            }
        default:
            let runner = self.runner
            Task { await runner.perform(effect) }
        }
    }
}
