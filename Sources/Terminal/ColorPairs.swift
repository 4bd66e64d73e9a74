@preconcurrency import CNcurses
import UICore

/// Turns theme styles into ncurses attributes and colour pairs, allocating pairs as they are first used.
struct ColorPairs {
    private(set) var colors: Int
    private var pairs: [PairKey: Int16] = [:]
    private var cache: [StyleRole: (attr_t, Int16)] = [:]
    private let maxPairs: Int

    private struct PairKey: Hashable {
        let fg: Int
        let bg: Int
    }

    init(colors: Int, maxPairs: Int) {
        self.colors = colors
        self.maxPairs = min(maxPairs, Int(Int16.max))
    }

    /// Forgets the pairs of the previous theme.
    mutating func reset() {
        pairs = [:]
        cache = [:]
    }

    mutating func attributes(for role: StyleRole, in theme: Theme) -> (attr_t, Int16) {
        if let hit = cache[role] { return hit }
        let style = theme.style(role)
        var attrs = td_a_normal()
        if style.bold { attrs |= td_a_bold() }
        if style.reverse { attrs |= td_a_reverse() }
        if style.underline { attrs |= td_a_underline() }
        // A grey with too few colours to show it is the terminal's colour, dimmed (ThemeColor.resolved).
        if colors > 0, colors < 16, style.foreground.isGrey { attrs |= td_a_dim() }
        var pair: Int16 = 0
        if colors >= 8 {
            let key = PairKey(
                fg: style.foreground.resolved(colors: colors), bg: style.background.resolved(colors: colors))
            if key.fg != -1 || key.bg != -1 {
                if let existing = pairs[key] {
                    pair = existing
                } else if pairs.count + 1 < maxPairs {
                    pair = Int16(pairs.count + 1)
                    init_pair(pair, Int16(key.fg), Int16(key.bg))
                    pairs[key] = pair
                }
            }
        }
        cache[role] = (attrs, pair)
        return (attrs, pair)
    }
}
