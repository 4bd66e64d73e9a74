import UICore

extension ThemeColor {
    /// `#rrggbb` for a page or a player; nil for the terminal's own colour, which they do not know.
    var hex: String? {
        switch self {
        case .terminalDefault: nil
        case .index(let n): Self.hex(Self.rgb(ofIndex: Int(n)))
        case .rgb(let r, let g, let b): Self.hex((Int(r), Int(g), Int(b)))
        }
    }

    static func hex(_ rgb: (Int, Int, Int)) -> String {
        "#"
            + [rgb.0, rgb.1, rgb.2].map { value in
                let digits = String(max(0, min(255, value)), radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
    }
}
