import Foundation
import KeyTable
import ProviderVocabulary
import UICore

/// How one person looks at a session: its terminal, theme and keys, what they froze, where a
/// replay stands, and their `Look`. Keys that only look (focus, reveal, zoom, overlays, the
/// table's filter and selection) change this and nothing of the session.
public struct ViewerState: Equatable, Sendable {
    public var look: Look
    public var display: Display
    /// `z`: the session as it was when frozen, shown instead of the live one, which goes on
    /// taking events.
    public var frozen: SessionState?
    /// Events taken since the freeze: the header counts them, so a frozen screen is never taken for live.
    public var eventsWhileFrozen = 0
    /// Set while a recording is replayed: the header says so, and live-only keys are refused.
    public var replay: ReplayStatus?
    /// In a replay, the screen shows the recorded person's look (their focus, overlays, zoom)
    /// until this viewer changes the look with a key of their own.
    public var followsRecording = true
    public var quitting = false

    public init(look: Look, display: Display) {
        self.look = look
        self.display = display
    }

    public init(look: Look, theme: Theme, themeNames: [String]) {
        self.init(look: look, display: Display(theme: theme, themeNames: themeNames))
    }

    public var themeName: String { display.theme.name }

    /// A viewer for the recorded person of a replay, made at its first recorded action: this
    /// terminal and keys, a fresh look, not replaying (a recorded p paused the SDKs).
    func forRecording(focus: ProviderKind) -> ViewerState {
        ViewerState(look: Look(focus: focus), display: display)
    }
}

/// Where and how a viewer sees: the terminal's size and colours, the theme, the time zone, the keys.
public struct Display: Equatable, Sendable {
    public var timeZone: TimeZone = .current
    /// The theme shown; the loop hands it to the terminal when it changes.
    public var theme: Theme
    /// The terminal shows no colours (`NO_COLOR`, or it has none): every theme is drawn in mono.
    public var colorless = false
    public var themeNames: [String]
    /// The terminal's size as last drawn: a click is placed with the layout of this size.
    public var screenWidth = 0
    public var screenHeight = 0
    /// The key table in effect: the built-in one, or the config file's remaps of it.
    public var keys: KeyMap = .standard

    public init(theme: Theme, themeNames: [String]) {
        self.theme = theme
        self.themeNames = themeNames
    }
}

/// What a person has chosen to see: the focused pane, what covers it, revealed tokens, the
/// timelines' zoom, the fleet tables' filters and selections, and the notice under the header.
/// A replay shows the recorded person's look; a key of the viewer's own takes it over.
public struct Look: Equatable, Sendable {
    /// The focused pane, by its kind.
    public var focus: ProviderKind
    public var overlay: Overlay = .none
    public var reveal = false
    /// Minutes the panes' timelines span: one of `Timeline.zoomLevels`.
    public var timelineMinutes = 10
    /// Each kind's fleet table filter and selection.
    public var tableQueries: [ProviderKind: TableQuery] = [:]
    /// A one-line notice under the header (an effect that failed, a theme that would not load).
    public var message: String?

    public init(focus: ProviderKind) { self.focus = focus }

    /// The same look but for the notice: a notice is an answer, not a choice of what to see.
    func sameView(as other: Look) -> Bool {
        var a = self
        var b = other
        (a.message, b.message) = (nil, nil)
        return a == b
    }
}

/// What covers the panes, if anything.
public enum Overlay: Equatable, Sendable {
    case none
    case help
    /// The fault menu, with the highlighted line and the providers a choice applies to.
    case faults(selection: Int, scope: RoleScope)
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
