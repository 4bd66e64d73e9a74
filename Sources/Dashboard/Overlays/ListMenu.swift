import KeyTable

/// A list with one highlighted row, moved through with the key map's menu keys (`KeyBinding.menuRows`):
/// the fault menu and the scenario menu are both one of these, so a remap reaches both.
enum ListMenu {
    enum Outcome: Equatable {
        /// The highlight moved to this row.
        case highlight(Int)
        case choose(Int)
        case close
        /// Not a list key: the menu may have its own use for it.
        case other
    }

    /// What `command` (a menu key's, from `KeyMap.menuCommand`) does to a list of `count` rows
    /// with row `selection` highlighted. Moving wraps around.
    static func outcome(_ command: Command?, selection: Int, count: Int) -> Outcome {
        guard count > 0 else { return command == .menuClose ? .close : .other }
        switch command {
        case .menuUp?: return .highlight((selection + count - 1) % count)
        case .menuDown?: return .highlight((selection + 1) % count)
        case .menuChoose?: return .choose(min(selection, count - 1))
        case .menuClose?: return .close
        default: return .other
        }
    }

    /// `↑/↓ and Enter`: how to move and choose, in the keys in effect.
    static func hint(_ keys: KeyMap) -> String {
        "\(keys.label(.menuUp))/\(keys.label(.menuDown)) and \(keys.label(.menuChoose))"
    }
}
