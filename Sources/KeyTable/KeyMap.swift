import UICore

/// The effective key table: the built-in bindings with the config file's remaps applied. The
/// state holds it, and the footer, the help overlay, the fleet table's border and the reducer all
/// read it, so a remapped key is shown where it works and works where it is shown.
public struct KeyMap: Equatable, Sendable {
    public private(set) var bindings: [KeyBinding]
    /// A replay's own keys, remapped the same way; they come first in a replay, where they win
    /// over a live key on the same key (`p` pauses the replay there, not the SDKs).
    public private(set) var replayBindings: [KeyBinding]
    /// The list menus' keys, remapped the same way; read only while a menu is open.
    public private(set) var menuBindings: [KeyBinding]

    public static let standard = KeyMap(bindings: KeyBinding.table)

    public init(
        bindings: [KeyBinding], replayBindings: [KeyBinding] = KeyBinding.replayRows,
        menuBindings: [KeyBinding] = KeyBinding.menuRows
    ) {
        self.bindings = bindings
        self.replayBindings = replayBindings
        self.menuBindings = menuBindings
    }

    /// The built-in tables, each command in `remaps` answering to the keys given instead of its
    /// own. A key left on two commands is an error, not a silent swap: swapping takes two remaps,
    /// so the file says what each key does. The replay's keys are checked against the keys that
    /// still work in a replay (live-only ones are refused there, so they may share a key).
    public init(remapping remaps: [Command: [Key]]) throws(KeyMapError) {
        func remapped(_ table: [KeyBinding]) throws(KeyMapError) -> [KeyBinding] {
            var bindings = table
            for index in bindings.indices {
                guard let keys = remaps[bindings[index].command] else { continue }
                guard let first = keys.first else { throw .noKeys(bindings[index].command) }
                bindings[index].keys = keys
                bindings[index].label = first.displayName
            }
            return bindings
        }
        let bindings = try remapped(KeyBinding.table)
        let replayBindings = try remapped(KeyBinding.replayRows)
        let menuBindings = try remapped(KeyBinding.menuRows)
        try Self.checkConflicts(bindings, remaps)
        try Self.checkConflicts(
            replayBindings + bindings.filter { !$0.command.isLiveOnly(replayFollows: true) }, remaps)
        try Self.checkConflicts(menuBindings, remaps)
        self.bindings = bindings
        self.replayBindings = replayBindings
        self.menuBindings = menuBindings
    }

    private static func checkConflicts(_ bindings: [KeyBinding], _ remaps: [Command: [Key]]) throws(KeyMapError) {
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
    }

    /// In a replay, the replay's keys first; live-only commands still come back, so that they
    /// can be refused with a reason.
    /// `scenarios`: the run's scenario level (`DashboardState.scenarioKeys`): S shows only when
    /// there are scenarios, Space and P only while one runs.
    public func command(for key: Key, fleet: Bool, replay: Bool = false, scenarios: KeyBinding.ScenarioLevel = .none)
        -> Command?
    {
        if replay, let row = replayBindings.first(where: { $0.keys.contains(key) }) { return row.command }
        return bindings.first { $0.keys.contains(key) && (fleet || !$0.fleetOnly) && scenarios >= $0.scenarios }?
            .command
    }

    /// `replayFollows`: a replay whose recording answers following an ID (a tap's: each ID's
    /// fetches are in it), where Enter and n/N follow as they did live.
    public func visible(
        fleet: Bool, replay: Bool = false, replayFollows: Bool = false, scenarios: KeyBinding.ScenarioLevel = .none
    ) -> [KeyBinding] {
        (replay ? replayBindings : [])
            + bindings.filter {
                (fleet || !$0.fleetOnly) && !(replay && $0.command.isLiveOnly(replayFollows: replayFollows))
                    && scenarios >= $0.scenarios
            }
    }

    /// What `key` does in an open list menu; nil for a key that is not a menu key.
    public func menuCommand(for key: Key) -> Command? {
        menuBindings.first { $0.keys.contains(key) }?.command
    }

    /// How a message names the key of `command` ("press x to reveal").
    public func label(_ command: Command) -> String {
        // Called while drawing every frame: no joined array for it.
        (bindings.first { $0.command == command } ?? replayBindings.first { $0.command == command }
            ?? menuBindings.first { $0.command == command })?.label ?? command.rawValue
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
