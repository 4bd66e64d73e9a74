import UICore

/// The effective key table: the built-in bindings with the config file's remaps applied. The
/// state holds it, and the footer, the help overlay, the fleet table's border and the reducer all
/// read it, so a remapped key is shown where it works and works where it is shown.
public struct KeyMap: Equatable, Sendable {
    public private(set) var bindings: [KeyBinding]

    public static let standard = KeyMap(bindings: KeyBinding.table)

    public init(bindings: [KeyBinding]) { self.bindings = bindings }

    /// The built-in table, each command in `remaps` answering to the keys given instead of its
    /// own. A key left on two commands is an error, not a silent swap: swapping takes two remaps,
    /// so the file says what each key does.
    public init(remapping remaps: [Command: [Key]]) throws(KeyMapError) {
        var bindings = KeyBinding.table
        for index in bindings.indices {
            guard let keys = remaps[bindings[index].command] else { continue }
            guard let first = keys.first else { throw .noKeys(bindings[index].command) }
            bindings[index].keys = keys
            bindings[index].label = first.displayName
        }
        var owner: [Key: Command] = [:]
        for binding in bindings {
            for key in binding.keys {
                if let other = owner[key], other != binding.command {
                    // Named as the file would have it: the remapped command is the one to fix.
                    let remapped = remaps[binding.command] != nil ? binding.command : other
                    throw .conflict(key: key, remapped: remapped, taken: remapped == other ? binding.command : other)
                }
                owner[key] = binding.command
            }
        }
        self.bindings = bindings
    }

    public func command(for key: Key, fleet: Bool) -> Command? {
        bindings.first { $0.keys.contains(key) && (fleet || !$0.fleetOnly) }?.command
    }

    public func visible(fleet: Bool) -> [KeyBinding] { bindings.filter { fleet || !$0.fleetOnly } }

    /// How a message names the key of `command` ("press x to reveal").
    public func label(_ command: Command) -> String {
        bindings.first { $0.command == command }?.label ?? command.rawValue
    }
}

/// Why remaps do not make a table.
public enum KeyMapError: Error, Equatable, CustomStringConvertible {
    /// `remapped` was given `key`, which `taken` still uses.
    case conflict(key: Key, remapped: Command, taken: Command)
    case noKeys(Command)

    public var description: String {
        switch self {
        case .conflict(let key, let remapped, let taken):
            "key \(key.displayName) for \(remapped.rawValue) is already bound to \(taken.rawValue); remap \(taken.rawValue) too to swap them"
        case .noKeys(let command):
            "\(command.rawValue) needs at least one key"
        }
    }
}
