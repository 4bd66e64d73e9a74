import Foundation
import ProviderVocabulary

/// What one pane draws: its provider's state and the few facts of the session and the viewer a
/// pane shows (the time, the clock's zone, pause, reveal, the timeline's zoom, the marks). The
/// pane's renderers take this and nothing else, as ratatui's widgets take their own state, so a
/// pane cannot reach another pane or the fleet.
struct PaneView {
    let pane: PaneState
    let focused: Bool
    /// Which code runs in this pane: the customer's class, a sample's logic, or nil for tokendash's.
    let logicLabel: String?
    let now: Date
    let paused: Bool
    let reveal: Bool
    /// The reveal key's label, for the redacted token's hint.
    let revealKey: String
    let refreshMargin: TimeInterval
    let updateInterval: TimeInterval?
    let timeZone: TimeZone
    let timelineMinutes: Int
    let marks: [Mark]

    init(_ state: DashboardState, kind: ProviderKind) {
        pane = state[kind]
        focused = state.focus == kind
        logicLabel = state.sourceLabels[kind.role] ?? state.providerLogic.paneLabel
        now = state.now
        paused = state.paused
        reveal = state.reveal
        revealKey = state.keys.label(.toggleReveal)
        refreshMargin = state.refreshMargin
        updateInterval = state.updateInterval
        timeZone = state.timeZone
        timelineMinutes = state.timelineMinutes
        marks = state.marks
    }
}
