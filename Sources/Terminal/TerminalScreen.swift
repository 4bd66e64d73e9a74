@preconcurrency import CNcurses
import Dashboard
import Foundation

/// The thin ncurses backend: draws Canvases and reads keys. It is the only code that calls ncurses,
/// and it must be used from one thread, the one that created it (ncurses keeps global state).
public final class TerminalScreen {
    public private(set) var theme: Theme
    /// Colours the terminal can show: 0 when it has none or `NO_COLOR` asked for none.
    public private(set) var colorCount = 0
    private var pairs = ColorPairs(colors: 0, maxPairs: 0)
    private var previous: Canvas?
    private var started = false

    public init(theme: Theme) {
        self.theme = theme
    }

    /// Takes over the terminal: raw keys (Ctrl-C arrives as a key), no echo, no cursor, the terminal's own background.
    public func start(noColor: Bool) {
        td_setlocale()
        initscr()
        started = true
        raw()
        noecho()
        keypad(td_stdscr(), true)
        curs_set(0)
        set_escdelay(25)
        if !noColor, has_colors() {
            start_color()
            use_default_colors()
            colorCount = Int(td_colors())
        }
        pairs = ColorPairs(colors: colorCount, maxPairs: Int(td_color_pairs()))
        if colorCount == 0 { theme = theme.monochrome }
    }

    /// Gives the terminal back as it was. Safe to call twice.
    public func stop() {
        guard started else { return }
        started = false
        curs_set(1)
        endwin()
    }

    public var size: (width: Int, height: Int) { (Int(td_cols()), Int(td_lines())) }

    public func setTheme(_ theme: Theme) {
        self.theme = colorCount == 0 ? theme.monochrome : theme
        pairs.reset()
        previous = nil
    }

    /// Draws only the cells that changed since the last frame, then lets ncurses flush: no clear, no flicker.
    public func draw(_ canvas: Canvas) {
        let full = previous == nil || previous?.width != canvas.width || previous?.height != canvas.height
        if full { erase() }
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let cell = canvas[x, y]
                if !full, let previous, previous[x, y] == cell { continue }
                // The bottom-right cell would scroll the screen on some terminals; ncurses reports ERR there, harmlessly.
                let (attrs, pair) = pairs.attributes(for: cell.role, in: theme)
                let scalar = cell.character.unicodeScalars.first?.value ?? 0x20
                _ = td_put(Int32(y), Int32(x), wchar_t(bitPattern: scalar), attrs, pair)
            }
        }
        previous = canvas
        refresh()
    }

    /// Forces the next frame to be drawn whole (after a resize).
    public func invalidate() { previous = nil }

    /// Waits up to `milliseconds` for a key; nil on timeout or a key tokendash does not use.
    public func readKey(timeoutMilliseconds milliseconds: Int32) -> Key? {
        timeout(milliseconds)
        var code: wint_t = 0
        let result = get_wch(&code)
        if result == ERR { return nil }
        if result == td_key_code_yes() {
            switch Int32(code) {
            case KEY_RESIZE: return .resize
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_BACKSPACE: return .backspace
            case KEY_ENTER: return .enter
            default: return nil
            }
        }
        switch code {
        case 3: return .interrupt
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
            return .character(Character(scalar))
        }
    }
}
