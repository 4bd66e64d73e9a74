import UICore
import FleetAuth

/// What a key on the main screen does.
public enum Command: Hashable, Sendable {
    /// The side a command is about, when it is about one: refused for the other under `--only`.
    var side: ProviderKind.Role? {
        switch self {
        case .newVehicle: .driver
        case .newTrip: .consumer
        default: nil
        }
    }

    case focusNext, refreshFocused, refreshBoth, newTrip, newVehicle, typeID, faultMenu, clearFaults
    case toggleReveal, togglePause, nextTheme, help, nextFleetMember, previousFleetMember, quit
    case zoomIn, zoomOut, copyToken
}

/// One row of the key table. The footer, the help overlay and the key handling all read this
/// table, so a key cannot work without being documented or be documented without working.
public struct KeyBinding: Sendable {
    public var keys: [Key]
    public var label: String
    public var hint: String
    public var help: String
    public var command: Command
    /// Shown only when a fleet is running.
    public var fleetOnly = false

    public static let table: [KeyBinding] = [
        KeyBinding(keys: [.tab], label: "Tab", hint: "Focus", help: "focus the other pane", command: .focusNext),
        KeyBinding(keys: [.character("r")], label: "r", hint: "Refresh", help: "force a token refresh for the focused pane", command: .refreshFocused),
        KeyBinding(keys: [.character("R")], label: "R", hint: "Both", help: "force a token refresh for both panes", command: .refreshBoth),
        KeyBinding(keys: [.character("t")], label: "t", hint: "Trip", help: "switch the consumer to a new trip ID", command: .newTrip),
        KeyBinding(keys: [.character("v")], label: "v", hint: "Vehicle", help: "switch the driver to a new vehicle ID", command: .newVehicle),
        KeyBinding(keys: [.character("i")], label: "i", hint: "ID", help: "type an ID for the focused pane", command: .typeID),
        KeyBinding(keys: [.character("f")], label: "f", hint: "Faults", help: "fault menu of the embedded token server", command: .faultMenu),
        KeyBinding(keys: [.character("c")], label: "c", hint: "Clear", help: "clear every fault of the embedded token server", command: .clearFaults),
        KeyBinding(keys: [.character("x")], label: "x", hint: "Reveal", help: "reveal or redact tokens", command: .toggleReveal),
        KeyBinding(keys: [.character("y")], label: "y", hint: "Copy", help: "copy the focused token to the clipboard (OSC 52; redacted unless revealed)", command: .copyToken),
        KeyBinding(keys: [.character("p")], label: "p", hint: "Pause", help: "pause or resume the SDK update loop", command: .togglePause),
        KeyBinding(keys: [.character("T")], label: "T", hint: "Theme", help: "next theme", command: .nextTheme),
        KeyBinding(keys: [.character("]"), .down], label: "]", hint: "Next", help: "follow the next trip/vehicle of the fleet in the focused pane", command: .nextFleetMember, fleetOnly: true),
        KeyBinding(keys: [.character("["), .up], label: "[", hint: "Prev", help: "follow the previous trip/vehicle of the fleet in the focused pane", command: .previousFleetMember, fleetOnly: true),
        KeyBinding(keys: [.character("+"), .character("=")], label: "+", hint: "Zoom", help: "timelines: a shorter span (2, 10, 60 minutes)", command: .zoomIn),
        KeyBinding(keys: [.character("-")], label: "-", hint: "Out", help: "timelines: a longer span", command: .zoomOut),
        KeyBinding(keys: [.character("?")], label: "?", hint: "Help", help: "this help", command: .help),
        KeyBinding(keys: [.character("q"), .interrupt], label: "q", hint: "Quit", help: "quit", command: .quit),
    ]

    public static func command(for key: Key, fleet: Bool) -> Command? {
        table.first { $0.keys.contains(key) && (fleet || !$0.fleetOnly) }?.command
    }

    public static func visible(fleet: Bool) -> [KeyBinding] { table.filter { fleet || !$0.fleetOnly } }
}
