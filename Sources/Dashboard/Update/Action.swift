import Faults
import Fleet
import FleetTables
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import UICore

/// Everything that can change the dashboard: provider events, keys, time, and reports from effects.
public enum Action: Equatable, Sendable {
    case event(ProviderEvent)
    case key(Key)
    case tick(Date)
    /// The terminal's size, sent by the loop when it changes.
    case resized(width: Int, height: Int)
    case themeLoaded(Theme)
    case faultsChanged([ProviderKind: Fault])
    case message(String?)
    case fleet([ProviderKind: FleetSummary])
    /// The ramp's pace while it starts SDKs (nil once it is over), once a second with the fleet rows.
    case rampPace(Pacer.Status?)
    /// Each kind's member table as the aggregate made it (under the filter it names).
    case fleetTables([ProviderKind: FleetTable])
    /// A fleet pane now follows member `index`: its ID, cached token, last failure and fetching flag.
    case following(ProviderKind, index: Int, member: MemberSnapshot)
    /// The answer to `Effect.findMember`: the index of the member whose ID is `id`, nil when no
    /// member has it. `from` is the member followed when the search began.
    case memberFound(ProviderKind, id: String, index: Int?, from: Int)
    /// A mark was made (the answer to `Effect.addMark`, or a recorded one replayed).
    case marked(Mark)
    /// Replay: an action as it was recorded. It changes the state as it did live; its effects
    /// were carried out then (their outcomes are recorded too), so they are not again.
    indirect case recorded(Action)
    /// Replay: where playback stands (the header shows it).
    case replayStatus(ReplayStatus)
    /// Replay: the recorded state at a point sought back to, rebuilt from the recording; the
    /// viewer's own screen size, colours, theme and replay status stay.
    case restore(DashboardState)
    /// The scenario's progress for the banner; nil takes the banner away.
    case scenario(ScenarioBanner?)
    /// The SDKs were paused or resumed other than by the key (a scenario step).
    case sdksPaused(Bool)
    /// The latency fault's delay as a scenario set it, so the header and menu name it right.
    case faultLatency(milliseconds: Int)
}
