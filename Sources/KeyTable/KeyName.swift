import UICore

/// Keys by name: as the help overlay shows them, and as the config file's `keys:` section names
/// them (a single character as itself, or one of `namedKeys`).
extension Key {
    /// The names a config file may use for keys that are not one printable character.
    public static let namedKeys: [String: Key] = [
        "tab": .tab, "enter": .enter, "esc": .escape, "backspace": .backspace,
        "up": .up, "down": .down, "left": .left, "right": .right, "home": .home, "end": .end, "space": .character(" "),
    ]

    /// A key from its config name: one character (case counts), or a named key (case does not).
    /// Ctrl-C has no name: it always quits, so the terminal is always given back.
    public init?(name: String) {
        if name.count == 1, let c = name.first, !c.isWhitespace, !(c.asciiValue.map { $0 < 32 || $0 == 127 } ?? false) {
            self = .character(c)
        } else if let key = Self.namedKeys[name.lowercased()] {
            self = key
        } else {
            return nil
        }
    }

    public var displayName: String {
        switch self {
        case .character(" "): "Space"
        case .character(let c): String(c)
        case .tab: "Tab"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Bksp"
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .interrupt: "Ctrl-C"
        case .resize: "resize"
        case .click: "click"
        }
    }
}
