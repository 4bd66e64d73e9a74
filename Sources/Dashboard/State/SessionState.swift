import Faults
import Fleet
import FleetTables
import Foundation
import Pacing
import ProviderVocabulary

/// What happened: the providers' panes, the fleet, the server's faults, marks, the scenario and
/// the time, as events, effects' answers and recorded actions made them. A freeze holds one
/// whole (`ViewerState.frozen`), a replay's seek replaces it whole, and no key of a replay's
/// viewer changes it.
public struct SessionState: Equatable, Sendable {
    /// The left pane: the solution's consumer-side kind (trip, or tracking token).
    public var consumer: PaneState
    /// The right pane: the driver-side kind (vehicle, or delivery vehicle token).
    public var driver: PaneState
    public var paused = false
    public var now: Date
    /// Header text: where tokens come from.
    public var backend: String
    /// TLS certificates are not verified (`--insecure`); the header warns in red.
    public var insecure = false
    /// Fault injection needs the embedded server.
    public var faultsAvailable: Bool
    /// The embedded server's faults by kind, as it reported them; named by `Fault.label`
    /// wherever they show, so the menu and the header use one name for each.
    public var activeFaults: [ProviderKind: Fault] = [:]
    /// The delay the latency fault adds, set with < and > in the fault menu.
    public var faultLatencyMilliseconds = Fault.defaultLatencyMilliseconds
    public var refreshMargin: TimeInterval
    /// How often the simulated SDKs ask for a token, when known: the pane says when the next call is.
    public var updateInterval: TimeInterval?
    /// `--only`: the one side run, shown, focused and acted on; nil runs both.
    public var only: ProviderKind.Role?
    /// Whose provider logic the SDKs run (`--provider-logic`): a sample's is named in the panes' titles.
    public var providerLogic: ProviderLogic = .tokendash
    /// The sides whose provider is the customer's own class (`--driver-source`), and what the
    /// pane's title says of it ("your code: SampleAccessTokenProvider.swift").
    public var sourceLabels: [ProviderKind.Role: String] = [:]
    /// Aggregate rows, present when a fleet runs.
    public var fleet: [ProviderKind: FleetSummary] = [:]
    /// The ramp's pace while it starts SDKs: the rate the backend's answers allow, and why.
    public var rampPace: Pacer.Status?
    /// Each kind's member table as the aggregate last made it, under the filter it names.
    public var fleetTables: [ProviderKind: FleetTable] = [:]
    /// The marks made so far (`m`), oldest first.
    public var marks: [Mark] = []
    /// The scenario running (or just finished), for the banner under the header.
    public var scenario: ScenarioBanner?
    /// The scenarios the S menu offers; empty hides the S key.
    public var scenarios: [ScenarioEntry] = []

    public init(
        consumer: PaneState, driver: PaneState, now: Date, backend: String, faultsAvailable: Bool,
        refreshMargin: TimeInterval
    ) {
        self.consumer = consumer
        self.driver = driver
        self.now = now
        self.backend = backend
        self.faultsAvailable = faultsAvailable
        self.refreshMargin = refreshMargin
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
