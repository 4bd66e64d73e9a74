import ProviderVocabulary
import Synchronization
import UICore

/// A terminal in memory: keys come from a script, waiting moves a test clock instead of time,
/// and every frame, theme and invalidation is kept for the test to read.
final class FakeTerminal: TerminalBackend {
    /// What `readKey` hands out next; `nil` entries are waits that time out.
    var script: [Key?]
    var size: (width: Int, height: Int)
    let clock: ManualClock
    let colors: Int
    private(set) var frames: [Canvas] = []
    private(set) var themes: [Theme] = []
    private(set) var invalidations = 0
    private(set) var clipboard: [String] = []
    private(set) var started = false
    private(set) var stopped = false
    /// Milliseconds the loop asked to wait, in order; a wake-up ends a wait at 0.
    private(set) var waits: [Int] = []
    private let woken = WakeFlag()
    /// Told each frame as it is drawn, and the stop: how a test on another thread sees the facts.
    var onDraw: (@Sendable (Canvas) -> Void)?
    var onStop: (@Sendable () -> Void)?

    init(script: [Key?] = [], width: Int = 100, height: Int = 30, clock: ManualClock, colors: Int = 256) {
        self.script = script
        self.size = (width, height)
        self.clock = clock
        self.colors = colors
    }

    func start() -> Int {
        started = true
        return colors
    }
    func stop() {
        stopped = true
        onStop?()
    }
    func setTheme(_ theme: Theme) { themes.append(theme) }
    func draw(_ canvas: Canvas) {
        frames.append(canvas)
        onDraw?(canvas)
    }
    func invalidate() { invalidations += 1 }
    func copyToClipboard(_ text: String) { clipboard.append(text) }
    var waker: @Sendable () -> Void {
        let flag = woken
        return { flag.set() }
    }

    func readKey(timeoutMilliseconds milliseconds: Int) -> Key? {
        if !script.isEmpty {
            if let key = script.removeFirst() { return key }
            // A scripted timeout: the whole wait passes.
            waits.append(milliseconds)
            clock.advance(by: Double(milliseconds) / 1000)
            return nil
        }
        guard milliseconds > 0 else { return nil }
        if woken.take() {
            waits.append(0)
            return nil
        }
        waits.append(milliseconds)
        clock.advance(by: Double(milliseconds) / 1000)
        return nil
    }

    var lastFrame: Canvas? { frames.last }
}

/// Set from any thread by the waker, taken by the terminal's wait.
final class WakeFlag: Sendable {
    // Guards the flag: the waker runs on effect tasks, the wait on the loop's thread.
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    func take() -> Bool {
        flag.withLock { v in
            defer { v = false }
            return v
        }
    }
}
