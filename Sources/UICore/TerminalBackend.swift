/// What the dashboard's loop needs from a terminal: its size, a way to draw a frame, keys with a
/// timeout, and a wake-up from other threads. ncurses is one implementation (module Terminal);
/// the runtime's tests use a fake one.
///
/// Used from one thread, the loop's, except `waker`, which any thread may call.
public protocol TerminalBackend: AnyObject {
    /// Takes over the terminal. Returns the number of colours it can show (0: none, or `NO_COLOR`).
    func start() -> Int
    /// Gives the terminal back as it was. Safe to call twice.
    func stop()
    var size: (width: Int, height: Int) { get }
    func setTheme(_ theme: Theme)
    /// Draws what changed since the last frame.
    func draw(_ canvas: Canvas)
    /// Forgets the last frame, so the next is drawn whole (after a resize).
    func invalidate()
    /// Waits up to `milliseconds` for a key; returns nil on timeout, on a key tokendash does not
    /// use, or as soon as `waker` is called.
    func readKey(timeoutMilliseconds milliseconds: Int) -> Key?
    /// Puts `text` on the clipboard of the terminal the user sits at (OSC 52).
    func copyToClipboard(_ text: String)
    /// Makes a waiting `readKey` return now: how answers from other threads reach the loop
    /// without it polling.
    var waker: @Sendable () -> Void { get }
}
