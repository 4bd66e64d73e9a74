import UICore
import FleetAuth

/// A fault the embedded server can inject, as the menu lists them.
public enum FaultChoice: String, CaseIterable, Sendable {
    case latency, http500, http401, rateLimited, malformed, wrongID, expired, drop

    /// How long a 429 tells the client to wait (`Retry-After`), in seconds.
    public static let retryAfterSeconds = 30

    /// The fault's one name, on the menu and in the header. `latency` is the delay in force.
    public func label(latencyMilliseconds: Int = 3000) -> String {
        switch self {
        case .latency: "latency (\(Format.seconds(latencyMilliseconds)) per request; < > adjust)"
        case .http500: "HTTP 500"
        case .http401: "HTTP 401 (credentials refused)"
        case .rateLimited: "HTTP 429, Retry-After \(Self.retryAfterSeconds) s"
        case .malformed: "malformed JSON"
        case .wrongID: "token for the wrong ID"
        case .expired: "already-expired token"
        case .drop: "drop the connection"
        }
    }
}

/// Which provider a fault applies to.
public enum FaultScope: String, CaseIterable, Sendable {
    case consumer, driver, both

    /// The scope of `kind`'s pane: the left pane is the consumer side in either solution.
    public init(_ kind: ProviderKind) { self = kind.role == .consumer ? .consumer : .driver }
    public var next: FaultScope {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }
}

/// Work the reducer asks for; the executable performs it and reports back with actions.
public enum Effect: Equatable, Sendable {
    /// The pane's followed fleet member travels with the effect: the state is its one source.
    case forceRefresh(ProviderKind, member: Int = 0)
    case switchID(ProviderKind, String, member: Int = 0)
    /// nil clears the faults of the scope.
    case setFault(FaultChoice?, FaultScope, latencyMilliseconds: Int = 3000)
    case setPaused(Bool)
    case loadTheme(String)
    /// Put `text` on the clipboard of the terminal (OSC 52), which may be a laptop far from this host.
    case copyToClipboard(String)
    /// The detail pane of `kind` now follows fleet member `index`: answered with `.following`.
    case follow(ProviderKind, index: Int)
    /// Which member of `kind` has the ID `id`: answered with `.memberFound`.
    case findMember(ProviderKind, id: String, from: Int)
    /// The table query: `kind`'s member table lists only IDs containing `filter` (empty: all).
    /// Answered with `.fleetTables` made under it.
    case setTableFilter(ProviderKind, String)
    /// Make a mark: answered with `.marked`. A mark is an outcome, like an event, so a recording
    /// holds the `.marked` answer and a replay shows it, without making a second one from the keys.
    case addMark(Mark)
    /// Write the screen text and the last events to a snapshot file; answered with a message saying where.
    case writeSnapshot(SnapshotRequest)
    /// A replay key: carried out by the replay source (pause, step, seek, speed).
    case replay(ReplayControl)
    /// Starts the scenario of this name (stopping one that runs).
    case startScenario(String)
    case scenarioControl(ScenarioControl)
    case quit
}
