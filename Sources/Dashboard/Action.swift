import UICore
import Fleet
import FleetAuth
import Foundation

/// Everything that can change the dashboard: provider events, keys, time, and reports from effects.
public enum Action: Equatable, Sendable {
    case event(ProviderEvent)
    case key(Key)
    case tick(Date)
    /// The terminal's size, sent by the loop when it changes.
    case resized(width: Int, height: Int)
    case themeLoaded(Theme)
    case faultsChanged([ProviderKind: FaultChoice])
    case message(String?)
    case fleet([ProviderKind: FleetSummary])
    /// A fleet pane now follows member `index`, whose ID is `id`.
    case following(ProviderKind, index: Int, id: String)
}
