/// A key press, already decoded from the terminal.
public enum Key: Hashable, Sendable {
    case character(Character)
    case tab, enter, escape, backspace, up, down
    /// Replay seeks with ←/→ and jumps to the start or end with Home/End.
    case left, right, home, end
    /// Ctrl-C arrives as a key in raw mode, so it can restore the terminal before quitting.
    case interrupt
    case resize
    /// A left-button click at a cell of the screen.
    case click(x: Int, y: Int)
}
