import UICore

/// The keys of a replay: shown and handled only while a recording is replayed, listed before the
/// main table so they win over a live key on the same key (p pauses the replay, not the SDKs).
extension KeyBinding {
    public static let replayRows: [KeyBinding] = [
        KeyBinding(
            keys: [.character(" "), .character("p")], label: "Space", hint: "Pause", help: "replay: pause or play",
            command: .replayPause),
        KeyBinding(
            keys: [.character(".")], label: ".", hint: "Step",
            help: "replay: pause and play to the next recorded event", command: .replayStep),
        KeyBinding(keys: [.left], label: "←", hint: "Seek", help: "replay: back / forward 10 s", command: .replayBack),
        KeyBinding(keys: [.right], label: "→", hint: "Seek", help: "replay: forward 10 s", command: .replayForward),
        KeyBinding(
            keys: [.home], label: "Home", hint: "Jump", help: "replay: jump to the start / end", command: .replayStart),
        KeyBinding(keys: [.end], label: "End", hint: "Jump", help: "replay: jump to the end", command: .replayEnd),
        KeyBinding(
            keys: [.character(">")], label: ">", hint: "Speed", help: "replay: speed 1×, 4×, 16×", command: .replaySpeed
        ),
    ]

    /// The keys of the list menus (faults, scenarios), apart from the main table: they work only
    /// while a menu is open, so they may share keys with it (`q` closes a menu, Tab changes the
    /// fault menu's scope). Remapped like any other.
    public static let menuRows: [KeyBinding] = [
        KeyBinding(
            keys: [.up, .character("k")], label: "↑", hint: "Up", help: "menu: the row above", command: .menuUp),
        KeyBinding(
            keys: [.down, .character("j")], label: "↓", hint: "Down", help: "menu: the row below", command: .menuDown),
        KeyBinding(
            keys: [.enter], label: "Enter", hint: "Choose", help: "menu: choose the highlighted row",
            command: .menuChoose),
        KeyBinding(
            keys: [.escape, .character("q")], label: "Esc", hint: "Close", help: "menu: close", command: .menuClose),
        KeyBinding(
            keys: [.tab], label: "Tab", hint: "Scope", help: "fault menu: consumer, driver or both",
            command: .faultScope),
        KeyBinding(
            keys: [.character("<")], label: "<", hint: "Less", help: "fault menu: half a second less latency",
            command: .latencyDown),
        KeyBinding(
            keys: [.character(">")], label: ">", hint: "More", help: "fault menu: half a second more latency",
            command: .latencyUp),
    ]

    /// Seconds a ←/→ press seeks.
    public static let seekStep: Double = 10
}

extension Command {
    /// Keys that act on the live providers or the embedded server: hidden and refused in a replay,
    /// whose outcomes are all in the recording already. Every command is listed, so a new one is
    /// decided here rather than allowed in a replay by default.
    public var isLiveOnly: Bool {
        switch self {
        case .refreshFocused, .refreshBoth, .newTrip, .newVehicle, .typeID, .faultMenu, .clearFaults, .togglePause,
            .nextFleetMember, .previousFleetMember, .nextTrouble, .previousTrouble, .followSelected,
            .scenarioMenu, .scenarioStep, .scenarioPause:
            true
        case .focusNext, .toggleReveal, .nextTheme, .help, .quit, .zoomIn, .zoomOut, .copyToken, .selectUp, .selectDown,
            .filterTable, .mark, .freeze, .snapshot, .replayPause, .replayStep, .replayBack, .replayForward,
            .replayStart, .replayEnd, .replaySpeed, .menuUp, .menuDown, .menuChoose, .menuClose, .faultScope,
            .latencyDown, .latencyUp:
            false
        }
    }

    /// Live only, unless the replay's recording answers following (`replayFollows`, a tap's: its
    /// marks keep each ID's last hour), where the keys that follow an ID act as they did live.
    public func isLiveOnly(replayFollows: Bool) -> Bool {
        guard replayFollows else { return isLiveOnly }
        switch self {
        case .nextFleetMember, .previousFleetMember, .nextTrouble, .previousTrouble, .followSelected: return false
        default: return isLiveOnly
        }
    }
}
