/// A colour as a theme file states it.
public enum ThemeColor: Hashable, Sendable, CustomStringConvertible {
    /// The terminal's own foreground or background.
    case terminalDefault
    /// 0-15 are the ANSI colours, 16-255 the xterm 256-colour cube and greys.
    case index(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    public static let names: [String: UInt8] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "gray": 8, "grey": 8, "brightblack": 8, "brightred": 9, "brightgreen": 10, "brightyellow": 11,
        "brightblue": 12, "brightmagenta": 13, "brightcyan": 14, "brightwhite": 15,
    ]

    /// Parses `default`, a colour name, an index 0-255, or `#rrggbb`; nil if it is none of those.
    public init?(parsing text: String) {
        // UICore stays free of Foundation: trimmed and folded by hand.
        let t = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).lowercased()
        if t == "default" {
            self = .terminalDefault
            return
        }
        if let n = Self.names[t.filter { $0 != "_" && $0 != "-" }] {
            self = .index(n)
            return
        }
        if let n = Int(t), (0...255).contains(n) {
            self = .index(UInt8(n))
            return
        }
        if t.hasPrefix("#"), t.count == 7, let v = UInt32(t.dropFirst(), radix: 16) {
            self = .rgb(UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
            return
        }
        return nil
    }

    public var description: String {
        switch self {
        case .terminalDefault: "default"
        case .index(let n): "\(n)"
        case .rgb(let r, let g, let b): "#" + [r, g, b].map { String($0, radix: 16).leftPadded(2) }.joined()
        }
    }

    /// The colour a terminal with `colors` colours can show: -1 for the terminal's default.
    public func resolved(colors: Int) -> Int {
        // Among 8 colours the nearest to a grey is yellow or white: every dim label would look
        // like a warning (TERM=xterm, linux). The terminal's own colour, dimmed, stands in.
        if colors < 16, isGrey { return -1 }
        switch self {
        case .terminalDefault: return -1
        case .index(let n):
            if Int(n) < colors { return Int(n) }
            return Self.nearest(Self.rgb(ofIndex: Int(n)), among: min(colors, 16))
        case .rgb(let r, let g, let b):
            return Self.nearest((Int(r), Int(g), Int(b)), among: colors >= 256 ? 256 : min(colors, 16))
        }
    }

    /// A grey between black and white: ANSI bright black, the 232-255 ramp, or an RGB with equal-ish channels.
    public var isGrey: Bool {
        let (r, g, b): (Int, Int, Int)
        switch self {
        case .terminalDefault: return false
        case .index(let n):
            guard n == 8 || n >= 232 else { return false }
            (r, g, b) = Self.rgb(ofIndex: Int(n))
        case .rgb(let red, let green, let blue): (r, g, b) = (Int(red), Int(green), Int(blue))
        }
        let high = max(r, g, b)
        let low = min(r, g, b)
        return high - low <= 24 && low >= 40 && high <= 215
    }

    /// The xterm palette entry `index` as RGB (standard ANSI values for 0-15).
    public static func rgb(ofIndex index: Int) -> (Int, Int, Int) {
        let ansi: [(Int, Int, Int)] = [
            (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
            (229, 229, 229),
            (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255),
            (255, 255, 255),
        ]
        if index < 16 { return ansi[max(0, index)] }
        if index < 232 {
            let i = index - 16
            let level = { (v: Int) in v == 0 ? 0 : 55 + v * 40 }
            return (level(i / 36), level(i / 6 % 6), level(i % 6))
        }
        let grey = 8 + (index - 232) * 10
        return (grey, grey, grey)
    }

    /// The palette index among the first `count` (16 or 256) closest to `rgb`.
    static func nearest(_ target: (Int, Int, Int), among count: Int) -> Int {
        var best = 0
        var bestDistance = Int.max
        for i in 0..<max(1, min(count, 256)) {
            let c = Self.rgb(ofIndex: i)
            let dr = c.0 - target.0
            let dg = c.1 - target.1
            let db = c.2 - target.2
            let d: Int = dr * dr + dg * dg + db * db
            if d < bestDistance {
                best = i
                bestDistance = d
            }
        }
        return best
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
