import Faults
import ProviderVocabulary
import UICore

/// Work the reducer asks for; the executable performs it and reports back with actions.
public enum Effect: Equatable, Sendable {
    /// The pane's followed fleet member travels with the effect: the state is its one source.
    case forceRefresh(ProviderKind, member: Int = 0)
    case switchID(ProviderKind, String, member: Int = 0)
    /// nil clears the faults of the scope.
    case setFault(Fault?, RoleScope, latencyMilliseconds: Int = Fault.defaultLatencyMilliseconds)
    case setPaused(Bool)
    case loadTheme(String)
    /// Put `text` on the clipboard of the terminal (OSC 52), which may be a laptop far from this host.
    case copyToClipboard(String)
    /// The detail pane of `kind` now follows fleet member `index`: answered with `.following`.
    case follow(ProviderKind, index: Int)
    /// Which member of `kind` has the ID `id`: answered with `.memberFound`.
    case findMember(ProviderKind, id: String, from: Int)
    /// The member tables, each kind's listing only IDs containing its filter (no filter: all).
    /// The filters are the viewer's, which keeps them (`TableQuery`); each request brings them, so
    /// no source keeps a copy. Asked when a filter changes and after each `.fleet`; answered with
    /// `.fleetTables`.
    case queryTables([ProviderKind: String])
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
}
