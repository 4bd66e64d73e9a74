import UICore

/// A frame as a terminal receives it: cursor moves, SGR colours and the text of the cells that
/// changed since the frame before, made from the `Canvas` and the theme (never read back from
/// ncurses). What `tokendash` draws through ncurses, an asciicast player draws from this.
struct ANSIFrameEncoder: Sendable {
    private(set) var theme: Theme
    private var sgr: [StyleRole: String]
    private var previous: Canvas?

    init(theme: Theme) {
        self.theme = theme
        sgr = Self.sequences(theme)
    }

    /// The theme changed: every cell is drawn again in its new colours.
    mutating func setTheme(_ theme: Theme) {
        guard theme != self.theme else { return }
        self.theme = theme
        sgr = Self.sequences(theme)
        previous = nil
    }

    /// The next frame drawn from scratch (after a resize).
    mutating func invalidate() { previous = nil }

    /// What a terminal must receive to show `canvas`, given what it shows now; empty when nothing changed.
    mutating func encode(_ canvas: Canvas) -> String {
        var out = ""
        var role: StyleRole?
        if previous == nil || previous?.width != canvas.width || previous?.height != canvas.height {
            // No wrap at the right edge (a full last row must not scroll), no cursor, the body's
            // colours under a cleared screen.
            out += "\u{1B}[?7l\u{1B}[?25l" + (sgr[.text] ?? "\u{1B}[0m") + "\u{1B}[2J"
            role = .text
        }
        let sgr = self.sgr
        canvas.forEachChangedRun(since: previous) { x, y, run in
            out += "\u{1B}[\(y + 1);\(x + 1)H"
            if let first = run.first, first.role != role {
                out += sgr[first.role] ?? "\u{1B}[0m"
                role = first.role
            }
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: run.lazy.map(\.scalar))
            out += String(scalars)
        }
        previous = canvas
        return out
    }

    /// Each role's SGR sequence, made once per theme: attributes reset, then set.
    static func sequences(_ theme: Theme) -> [StyleRole: String] {
        var table: [StyleRole: String] = [:]
        for role in StyleRole.allCases {
            let style = theme.style(role)
            var codes = ["0"]
            if style.bold { codes.append("1") }
            if style.underline { codes.append("4") }
            if style.reverse { codes.append("7") }
            if let fg = code(style.foreground, base: 30, bright: 90, extended: 38) { codes.append(fg) }
            if let bg = code(style.background, base: 40, bright: 100, extended: 48) { codes.append(bg) }
            table[role] = "\u{1B}[" + codes.joined(separator: ";") + "m"
        }
        return table
    }

    private static func code(_ color: ThemeColor, base: Int, bright: Int, extended: Int) -> String? {
        switch color {
        case .terminalDefault: nil
        case .index(let n) where n < 8: "\(base + Int(n))"
        case .index(let n) where n < 16: "\(bright + Int(n) - 8)"
        case .index(let n): "\(extended);5;\(n)"
        case .rgb(let r, let g, let b): "\(extended);2;\(r);\(g);\(b)"
        }
    }
}
