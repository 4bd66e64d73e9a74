import UICore
import Fleet
import FleetAuth
import Foundation

/// What covers the panes, if anything.
public enum Overlay: Equatable, Sendable {
    case none
    case help
    /// The fault menu, with the highlighted line and the providers a choice applies to.
    case faults(selection: Int, scope: FaultScope)
    /// Typing an ID for the focused pane; `note` says why the last key was refused, or that the
    /// input is full.
    case input(String, note: String? = nil)
    /// Typing the focused kind's fleet table filter (an ID substring), with the same notes.
    case filter(String, note: String? = nil)
    /// Typing the note of a new mark (`m`); empty makes a mark without one.
    case mark(String, note: String? = nil)
    /// The S menu: the running scenario's controls and the scenarios to start, one highlighted.
    case scenarios(selection: Int)
}

/// The whole dashboard as a value: the reducer changes it, `render` draws it.
public struct DashboardState: Equatable, Sendable {
    /// The left pane: the solution's consumer-side kind (trip, or tracking token).
    public var consumer: PaneState
    /// The right pane: the driver-side kind (vehicle, or delivery vehicle token).
    public var driver: PaneState
    /// The focused pane, by its kind.
    public var focus: ProviderKind = .consumer
    public var reveal = false
    public var paused = false
    public var now: Date
    public var timeZone: TimeZone = .current
    /// The theme shown; the loop hands it to the terminal when it changes.
    public var theme: Theme
    public var themeName: String { theme.name }
    /// The terminal shows no colours (`NO_COLOR`, or it has none): every theme is drawn in mono.
    public var colorless = false
    public var themeNames: [String]
    /// Header text: where tokens come from.
    public var backend: String
    /// TLS certificates are not verified (`--insecure`); the header warns in red.
    public var insecure = false
    /// Fault injection needs the embedded server.
    public var faultsAvailable: Bool
    /// The embedded server's faults by kind, as it reported them; named by `FaultChoice.label`
    /// wherever they show, so the menu and the header use one name for each.
    public var activeFaults: [ProviderKind: FaultChoice] = [:]
    /// The delay the latency fault adds, set with < and > in the fault menu.
    public var faultLatencyMilliseconds = 3000
    public var overlay: Overlay = .none
    public var refreshMargin: TimeInterval
    /// How often the simulated SDKs ask for a token, when known: the pane says when the next call is.
    public var updateInterval: TimeInterval?
    /// Minutes the panes' timelines span: one of `Timeline.zoomLevels`.
    public var timelineMinutes = 10
    /// The terminal's size as last drawn: a click is placed with the layout of this size.
    public var screenWidth = 0
    public var screenHeight = 0
    /// `--only`: the one side shown, focused and acted on; nil shows both.
    public var only: ProviderKind.Role? {
        didSet { if let only { focus = only == .consumer ? consumer.kind : driver.kind } }
    }
    /// A one-line notice under the header (an effect that failed, a theme that would not load).
    public var message: String?
    /// Aggregate rows, present when a fleet runs.
    public var fleet: [ProviderKind: FleetSummary] = [:]
    /// Each kind's member table in a fleet: its rows, filter and selection.
    public var tables: [ProviderKind: MemberTable] = [:]
    public var quitting = false
    /// The marks made so far (`m`), oldest first.
    public var marks: [Mark] = []
    /// `z`: the picture on the screen while frozen; the state below goes on taking events.
    public var frozen: FrozenView?
    /// Events taken since the freeze: the header counts them, so a frozen screen is never taken for live.
    public var eventsWhileFrozen = 0
    /// Set only on the picture a freeze shows: the header's "FROZEN" notice.
    public internal(set) var freezeBadge: String?
    /// The key table in effect: the built-in one, or the config file's remaps of it.
    public var keys: KeyMap = .standard
    /// Set while a recording is replayed: the header says so, and live-only keys are refused.
    public var replay: ReplayStatus?
    /// The scenario running (or just finished), for the banner under the header.
    public var scenario: ScenarioBanner?
    /// The scenarios the S menu offers; empty hides the S key.
    public var scenarios: [ScenarioEntry] = []

    public init(consumerID: String, driverID: String, now: Date, backend: String, faultsAvailable: Bool,
                theme: Theme = Theme(name: "default", styles: [:]), themeNames: [String] = ["default"], refreshMargin: TimeInterval = 300,
                trips: Int = 1, vehicles: Int = 1, solution: ProviderKind.Solution = .onDemand) {
        consumer = PaneState(kind: solution.consumerKind, id: consumerID)
        driver = PaneState(kind: solution.driverKind, id: driverID)
        focus = solution.consumerKind
        consumer.memberCount = trips
        driver.memberCount = vehicles
        self.now = now
        self.backend = backend
        self.faultsAvailable = faultsAvailable
        self.theme = theme
        self.themeNames = themeNames
        self.refreshMargin = refreshMargin
    }

    /// `consumer=HTTP 500, driver=…`: the active faults as the header and the fault menu show them.
    public var activeFaultsText: String {
        activeFaults.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value.label(latencyMilliseconds: faultLatencyMilliseconds))" }.joined(separator: ", ")
    }

    public var isFleet: Bool { consumer.memberCount > 1 || driver.memberCount > 1 }

    /// The panes' kinds, left then right.
    public var kinds: [ProviderKind] { [consumer.kind, driver.kind] }

    /// The pane on `kind`'s side: panes are slots by role, so either solution's pair fits.
    public subscript(kind: ProviderKind) -> PaneState {
        get { kind.role == .consumer ? consumer : driver }
        set { if kind.role == .consumer { consumer = newValue } else { driver = newValue } }
    }
}
