import DashboardRuntime
import Foundation
import LogsScreen
import Signals
import Synchronization
import Terminal
import UICore

/// `tokendash logs FILE` on a terminal: the logs screen drawn at each key and, while the export
/// plays, ten times a second, until q, Ctrl-C or a signal (SIGTERM, SIGHUP), the terminal given
/// back as it was either way.
enum LogsScreenLoop {
    /// `theme`: `replay --theme`'s name; nil for `NO_COLOR`'s or the default.
    static func run(_ view: LogsView, theme requested: String? = nil) throws {
        let terminal = TerminalScreen(
            theme: try EvidenceInput.theme(named: requested),
            noColor: ThemeCatalog.noColor(requested: requested, environment: ProcessInfo.processInfo.environment),
            mouse: true)
        let signals = SignalWatcher([SIGINT, SIGTERM, SIGHUP])
        // Set by the signal's task, read by the loop at each turn.
        let stopped = Mutex(false)
        let waker = terminal.waker
        let watching = Task {
            _ = await signals.next()
            stopped.withLock { $0 = true }
            waker()
        }
        _ = terminal.start()
        defer {
            terminal.stop()
            watching.cancel()
        }
        var view = view
        let clock = ContinuousClock()
        var last = clock.now
        while !stopped.withLock({ $0 }) {
            let (width, height) = terminal.size
            let visibleRows = LogsRenderer.tableRows(height: height)
            // Time moves the playhead only while it plays: the time since the last turn, so a slow
            // frame plays as far as a quick one.
            let now = clock.now
            view.advance(by: now - last, visibleRows: visibleRows)
            last = now
            terminal.draw(LogsRenderer.render(view, width: width, height: height))
            // Paused, nothing moves but keys: the timeout only bounds how long a signal waits.
            let playing = view.player.map { !$0.paused } ?? false
            guard let key = terminal.readKey(timeoutMilliseconds: playing ? 100 : 1000) else { continue }
            if key == .resize {
                terminal.invalidate()
                continue
            }
            if view.handle(key, visibleRows: visibleRows) == .quit { return }
        }
    }
}
