import ProviderVocabulary
import UICore

/// What a key on the main screen does. The raw value is the command's name in the config file's
/// `keys:` section (`refresh: R`): stable, so a new command is remappable by adding a case.
public enum Command: String, Hashable, Sendable, CaseIterable {
    /// The side a command is about, when it is about one: refused for the other under `--only`.
    public var side: ProviderKind.Role? {
        switch self {
        case .newVehicle: .driver
        case .newTrip: .consumer
        case .focusNext, .refreshFocused, .refreshBoth, .typeID, .faultMenu, .clearFaults, .toggleReveal, .togglePause,
            .nextTheme, .help, .nextFleetMember, .previousFleetMember, .quit, .zoomIn, .zoomOut, .copyToken,
            .nextTrouble, .previousTrouble, .selectUp, .selectDown, .followSelected, .filterTable, .mark, .freeze,
            .snapshot, .replayPause, .replayStep, .replayBack, .replayForward, .replayStart, .replayEnd, .replaySpeed,
            .scenarioMenu, .scenarioStep, .scenarioPause, .menuUp, .menuDown, .menuChoose, .menuClose, .faultScope,
            .latencyDown, .latencyUp:
            nil
        }
    }

    case focusNext = "focus"
    case refreshFocused = "refresh"
    case refreshBoth = "refresh-both"
    case newTrip = "new-trip"
    case newVehicle = "new-vehicle"
    case typeID = "type-id"
    case faultMenu = "faults"
    case clearFaults = "clear-faults"
    case toggleReveal = "reveal"
    case togglePause = "pause"
    case nextTheme = "next-theme"
    case help
    case nextFleetMember = "next-member"
    case previousFleetMember = "previous-member"
    case quit
    case zoomIn = "zoom-in"
    case zoomOut = "zoom-out"
    case copyToken = "copy"
    case nextTrouble = "next-trouble"
    case previousTrouble = "previous-trouble"
    case selectUp = "select-up"
    case selectDown = "select-down"
    case followSelected = "follow-selected"
    case filterTable = "filter"
    case mark, freeze, snapshot
    /// A replay's own keys (`KeyBinding.replayRows`).
    case replayPause = "replay-pause"
    case replayStep = "replay-step"
    case replayBack = "replay-back"
    case replayForward = "replay-forward"
    case replayStart = "replay-start"
    case replayEnd = "replay-end"
    case replaySpeed = "replay-speed"
    case scenarioMenu = "scenario-menu"
    case scenarioStep = "scenario-step"
    case scenarioPause = "scenario-pause"
    /// The list menus' own keys (`KeyBinding.menuRows`): they work only while a menu is open.
    case menuUp = "menu-up"
    case menuDown = "menu-down"
    case menuChoose = "menu-choose"
    case menuClose = "menu-close"
    case faultScope = "fault-scope"
    case latencyDown = "latency-down"
    case latencyUp = "latency-up"
}

/// One row of the key table. The footer, the help overlay and the key handling all read the one
/// effective table (`KeyMap`, in the state), so a key cannot work without being documented or be
/// documented without working.
public struct KeyBinding: Sendable, Equatable {
    public var keys: [Key]
    public var label: String
    public var hint: String
    public var help: String
    public var command: Command
    /// Shown only when a fleet is running.
    public var fleetOnly = false
    /// Hinted on the fleet table's border instead of the footer: it acts on the table.
    public var inTable = false
    /// Shown only from this scenario level: S when the run has scenarios, Space and P while one runs.
    public var scenarios: ScenarioLevel = .none

    /// How far a run is into scenarios: none to list, some listed, one running (which lists too).
    public enum ScenarioLevel: Int, Sendable, Comparable {
        case none, listed, running
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// The built-in bindings; `KeyMap` applies the config file's remaps to them.
    public static let table: [KeyBinding] = [
        KeyBinding(keys: [.tab], label: "Tab", hint: "Focus", help: "focus the other pane", command: .focusNext),
        KeyBinding(
            keys: [.character("r")], label: "r", hint: "Refresh",
            help: "force a token refresh: r the focused pane, R both", command: .refreshFocused),
        KeyBinding(
            keys: [.character("R")], label: "R", hint: "Refresh", help: "force a token refresh for both panes",
            command: .refreshBoth),
        KeyBinding(
            keys: [.character("t")], label: "t", hint: "Trip", help: "switch the consumer to a new trip ID",
            command: .newTrip),
        KeyBinding(
            keys: [.character("v")], label: "v", hint: "Vehicle", help: "switch the driver to a new vehicle ID",
            command: .newVehicle),
        KeyBinding(
            keys: [.character("i")], label: "i", hint: "ID",
            help: "type an ID for the focused pane; in a fleet, follow it", command: .typeID),
        KeyBinding(
            keys: [.character("f")], label: "f", hint: "Faults", help: "fault menu of the embedded token server",
            command: .faultMenu),
        KeyBinding(
            keys: [.character("c")], label: "c", hint: "Clear", help: "clear every fault of the embedded token server",
            command: .clearFaults),
        KeyBinding(
            keys: [.character("x")], label: "x", hint: "Reveal", help: "reveal or redact tokens", command: .toggleReveal
        ),
        KeyBinding(
            keys: [.character("y")], label: "y", hint: "Copy",
            help: "copy the focused token to the clipboard (OSC 52; redacted unless revealed)", command: .copyToken),
        KeyBinding(
            keys: [.character("p")], label: "p", hint: "Pause", help: "pause or resume the SDK update loop",
            command: .togglePause),
        KeyBinding(keys: [.character("T")], label: "T", hint: "Theme", help: "next theme", command: .nextTheme),
        // Pairs share a hint, and the footer and help show them as one: "]/[ Member".
        KeyBinding(
            keys: [.character("]")], label: "]", hint: "Member",
            help: "follow the next / previous trip or vehicle of the fleet", command: .nextFleetMember, fleetOnly: true),
        KeyBinding(
            keys: [.character("[")], label: "[", hint: "Member",
            help: "follow the previous trip or vehicle of the fleet", command: .previousFleetMember, fleetOnly: true),
        KeyBinding(
            keys: [.character("n")], label: "n", hint: "Trouble", help: "follow the next / previous member in trouble",
            command: .nextTrouble, fleetOnly: true),
        KeyBinding(
            keys: [.character("N")], label: "N", hint: "Trouble", help: "follow the previous member in trouble",
            command: .previousTrouble, fleetOnly: true),
        KeyBinding(
            keys: [.up, .character("k")], label: "↑", hint: "Select",
            help: "fleet table: select the previous / next row", command: .selectUp, fleetOnly: true, inTable: true),
        KeyBinding(
            keys: [.down, .character("j")], label: "↓", hint: "Select", help: "fleet table: select the next row",
            command: .selectDown, fleetOnly: true, inTable: true),
        KeyBinding(
            keys: [.enter], label: "Enter", hint: "Follow",
            help: "fleet table: follow the selected member in the focused pane", command: .followSelected,
            fleetOnly: true, inTable: true),
        KeyBinding(
            keys: [.character("/")], label: "/", hint: "Filter", help: "fleet table: show only IDs containing a text",
            command: .filterTable, fleetOnly: true, inTable: true),
        KeyBinding(
            keys: [.character("+"), .character("=")], label: "+", hint: "Zoom",
            help: "timelines: + a shorter span, - a longer one (2, 10, 60 minutes)", command: .zoomIn),
        KeyBinding(
            keys: [.character("-")], label: "-", hint: "Zoom", help: "timelines: a longer span", command: .zoomOut),
        KeyBinding(
            keys: [.character("m")], label: "m", hint: "Mark",
            help: "mark this moment, with an optional note (timelines, recording)", command: .mark),
        KeyBinding(
            keys: [.character("z")], label: "z", hint: "Freeze",
            help: "freeze or unfreeze the screen (events go on being taken and recorded)", command: .freeze),
        KeyBinding(
            keys: [.character("s")], label: "s", hint: "Snapshot",
            help: "write the screen and the last 200 events to a snapshot file", command: .snapshot),
        KeyBinding(
            keys: [.character("S")], label: "S", hint: "Scenarios",
            help: "scenarios: start one; pause, restart or stop the one running", command: .scenarioMenu,
            scenarios: .listed),
        KeyBinding(
            keys: [.character(" ")], label: "Space", hint: "Step",
            help: "scenario: the next step (--step), or skip the wait for it", command: .scenarioStep,
            scenarios: .running),
        KeyBinding(
            keys: [.character("P")], label: "P", hint: "Demo ‖", help: "scenario: pause or resume",
            command: .scenarioPause, scenarios: .running),
        KeyBinding(keys: [.character("?")], label: "?", hint: "Help", help: "this help", command: .help),
        KeyBinding(keys: [.character("q"), .interrupt], label: "q", hint: "Quit", help: "quit", command: .quit),
    ]

    /// Neighbours sharing a hint as one binding: labels joined with "/", keys together, the
    /// first one's help (written to cover the pair). The footer, the table's border and the help
    /// show pairs this way.
    public static func paired(_ bindings: [KeyBinding]) -> [KeyBinding] {
        var out: [KeyBinding] = []
        for binding in bindings {
            if var last = out.last, last.hint == binding.hint {
                last.label += "/" + binding.label
                last.keys += binding.keys
                out[out.count - 1] = last
            } else {
                out.append(binding)
            }
        }
        return out
    }
}
