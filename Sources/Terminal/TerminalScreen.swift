@preconcurrency import CNcurses
import Foundation
import UICore

/// The thin ncurses backend: draws Canvases and reads keys. It is the only code that calls ncurses,
/// and it must be used from one thread, the one that created it (ncurses keeps global state).
public final class TerminalScreen: TerminalBackend {
    public private(set) var theme: Theme
    /// Colours the terminal can show: 0 when it has none or `NO_COLOR` asked for none.
    public private(set) var colorCount = 0
    private var pairs = ColorPairs(colors: 0, maxPairs: 0)
    private var previous: Canvas?
    /// The wide characters of one run, reused from run to run.
    private var scratch: [wchar_t] = []
    private var started = false
    private let noColor: Bool
    private let mouse: Bool
    private let wakePipe: WakePipe

    /// `mouse`: report left clicks (off with `--no-mouse`, which leaves the terminal's own selection alone).
    public init(theme: Theme, noColor: Bool, mouse: Bool = true) {
        self.theme = theme
        self.noColor = noColor
        self.mouse = mouse
        wakePipe = WakePipe()
    }

    public var waker: @Sendable () -> Void { wakePipe.wake }

    /// Takes over the terminal: raw keys (Ctrl-C arrives as a key), no echo, no cursor, the terminal's own background.
    public func start() -> Int {
        td_setlocale()
        // Before initscr, so it saves the settings the user's shell had.
        CrashRestorer.install()
        initscr()
        started = true
        raw()
        noecho()
        keypad(td_stdscr(), true)
        curs_set(0)
        set_escdelay(25)
        if mouse { td_enable_clicks() }
        if !noColor, has_colors() {
            start_color()
            use_default_colors()
            colorCount = Int(td_colors())
        }
        pairs = ColorPairs(colors: colorCount, maxPairs: Int(td_color_pairs()))
        if colorCount == 0 { theme = theme.monochrome }
        return colorCount
    }

    /// Gives the terminal back as it was. Safe to call twice.
    public func stop() {
        guard started else { return }
        started = false
        // Blank the screen before leaving it. Without an alternate screen (terminfo with no
        // smcup, tmux's alternate-screen off) the last frame otherwise stays over the shell's
        // text. And in tmux, leaving the alternate screen in a resize storm sometimes let a line
        // of the last frame (drawn for a size already gone) reach the shell's screen.
        clear()
        refresh()
        curs_set(1)
        endwin()
        CrashRestorer.uninstall()
    }

    public var size: (width: Int, height: Int) { (Int(td_cols()), Int(td_lines())) }

    public func setTheme(_ theme: Theme) {
        self.theme = colorCount == 0 ? theme.monochrome : theme
        pairs.reset()
        previous = nil
    }

    /// Draws only the cells that changed since the last frame, then lets ncurses flush: no clear,
    /// no flicker, except for a frame of a new size, which is sent whole.
    public func draw(_ canvas: Canvas) {
        let full = previous == nil || previous?.width != canvas.width || previous?.height != canvas.height
        if full {
            // clear(), not erase(): the next refresh blanks the real terminal and sends every cell.
            // In a resize storm a frame drawn for a size already gone can wrap and scroll the real
            // screen, and ncurses, trusting its own copy, then sends only the differences: the
            // frame stayed shifted up until quit (seen under load in CI). A full frame is rare
            // (a resize, a theme) and costs one repaint.
            // One column wide, the bottom-right cell is in column 0 and ncurses fills it by writing
            // one column to its left and inserting the character it finds there, outside the line:
            // a stray letter from memory showed at 1x1. So that cell is never drawn (below), and
            // the blank terminal leaves no old letter there to overwrite either.
            clear()
        }
        let lastRow = canvas.height - 1
        canvas.forEachChangedRun(since: full ? nil : previous) { x, y, run in
            // The bottom-right cell would scroll the screen on some terminals; ncurses reports ERR there, harmlessly.
            var count = run.count
            if canvas.width == 1, y == lastRow { count = 0 }
            guard count > 0 else { return }
            let (attrs, pair) = pairs.attributes(for: run[0].role, in: theme)
            scratch.removeAll(keepingCapacity: true)
            for cell in run.prefix(count) { scratch.append(wchar_t(bitPattern: cell.scalar.value)) }
            scratch.append(0)
            _ = scratch.withUnsafeBufferPointer {
                td_put_run(Int32(y), Int32(x), $0.baseAddress, Int32(count), attrs, pair)
            }
        }
        previous = canvas
        refresh()
    }

    /// OSC 52: the terminal (xterm, kitty, iTerm2, tmux with set-clipboard) puts the text on its
    /// clipboard, wherever it runs, over ssh too. Written between frames, straight to the tty.
    public func copyToClipboard(_ text: String) {
        let sequence = "\u{1b}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}"
        FileHandle.standardOutput.write(Data(sequence.utf8))
    }

    /// Forces the next frame to be drawn whole (after a resize).
    public func invalidate() { previous = nil }

    /// Waits up to `milliseconds` for a key; nil on timeout, on a key tokendash does not use, or
    /// when woken. The wait is a poll(2) on the terminal and the wake pipe, so another thread's
    /// answer ends it at once; ncurses then reads without waiting.
    public func readKey(timeoutMilliseconds milliseconds: Int) -> Key? {
        // Keys ncurses already holds (pushed back, or read ahead) are not visible to poll.
        if let key = decodeKey(timeout: 0) { return key }
        guard milliseconds > 0 else { return nil }
        wakePipe.wait(forInputOn: STDIN_FILENO, milliseconds: milliseconds)
        return decodeKey(timeout: 0)
    }

    /// The next key as ncurses decodes it, waiting at most `milliseconds`; a resize ncurses saw
    /// comes out as `.resize`.
    private func decodeKey(timeout milliseconds: Int32) -> Key? {
        timeout(milliseconds)
        var code: wint_t = 0
        let result = get_wch(&code)
        if result == ERR { return nil }
        if result == td_key_code_yes() {
            switch Int32(code) {
            case KEY_RESIZE: return .resize
            case KEY_MOUSE:
                var x: Int32 = 0
                var y: Int32 = 0
                return td_read_click(&x, &y) == 0 ? .click(x: Int(x), y: Int(y)) : nil
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_BACKSPACE: return .backspace
            case KEY_ENTER: return .enter
            default: return nil
            }
        }
        switch code {
        case 3: return .interrupt
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return readAfterEscape()
        case 8, 127: return .backspace
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
            return .character(Character(scalar))
        }
    }

    /// Longest CSI sequence dropped in one go; a bound, so a flood of input cannot hold the loop.
    private static let longestSequence = 512
    /// Longest DCS/OSC string looked through for its end. What was read goes back into ncurses'
    /// input queue when no end is found, and that queue holds only about 137 bytes.
    private static let longestString = 32

    /// What `get_wch` gave: a character, or a function key ncurses decoded (arrows, resize...).
    private enum InputCode: Equatable {
        case character(UInt32)
        case function(Int32)

        var isFunction: Bool { if case .function = self { true } else { false } }
    }

    /// ncurses hands over a lone ESC when the bytes after it match no key it knows (it has already
    /// waited ESCDELAY for more) and leaves those bytes queued. After `[` or `O` they are the rest
    /// of a CSI or SS3 sequence (a key with modifiers terminfo lacks such as `\e[15;6~`, a report
    /// such as `\e[2;2R`), and after `P`, `]`, `X`, `^` or `_` a string ending in BEL or ST, such
    /// as `\eP+q...\e\\`. Read one by one they would run commands: `R` refreshing, digits
    /// choosing faults in the fault menu, a `q` quitting. So such a sequence is dropped whole.
    /// Anything else after ESC is Escape followed by that key, as ncurses itself reads it: when
    /// the loop falls behind the input, Escape and the next key typed are queued together too.
    private func readAfterEscape() -> Key? {
        guard let first = pendingCode() else { return .escape }
        switch first {
        case .character(0x5B):  // CSI `[`: parameter and intermediate bytes 0x20-0x3F, then one final byte 0x40-0x7E.
            for _ in 0..<Self.longestSequence {
                guard let code = pendingCode() else { break }
                guard case .character(let c) = code, c != 27 else {
                    // A cut-off sequence followed by the next sequence or key: leave that to be read whole.
                    putBack([code])
                    break
                }
                if !(0x20...0x3F).contains(c) { break }
            }
            return nil
        case .character(0x4F):  // SS3 `O`: one final byte.
            if let code = pendingCode(), code == .character(27) || code.isFunction { putBack([code]) }
            return nil
        case .character(0x50), .character(0x5D), .character(0x58), .character(0x5E), .character(0x5F):
            // DCS, OSC, SOS, PM, APC: dropped only when their end is queued too; otherwise they
            // were keys typed after Escape (`]` is a key here) and go back to be read as keys.
            var read = [first]
            for _ in 0..<Self.longestString {
                guard let code = pendingCode() else { break }
                read.append(code)
                if code == .character(0x07) { return nil }
                if read.count >= 2, read[read.count - 2] == .character(27), code == .character(0x5C) { return nil }
            }
            putBack(read)
            return .escape
        default:
            putBack([first])
            return .escape
        }
    }

    /// Returns codes to ncurses' input queue, to be read next in this order.
    private func putBack(_ codes: [InputCode]) {
        // Both calls push onto the front of the queue, so the last code goes first.
        for code in codes.reversed() {
            switch code {
            case .character(let c): _ = unget_wch(wchar_t(bitPattern: c))
            case .function(let key): _ = ungetch(key)
            }
        }
    }

    /// The next code already queued, without waiting; nil when there is none.
    private func pendingCode() -> InputCode? {
        timeout(0)
        var code: wint_t = 0
        let result = get_wch(&code)
        if result == ERR { return nil }
        if result == td_key_code_yes() { return .function(Int32(code)) }
        return .character(UInt32(code))
    }
}
