import Foundation

/// A point in time the user marked (`m`), with an optional note: "customer pressed refresh",
/// "backend redeployed". Shown on the timelines, written to a recording, replayed from it.
public struct Mark: Equatable, Sendable, Codable {
    /// 1, 2, 3…: the number the timelines show.
    public var number: Int
    public var at: Date
    public var note: String?

    public init(number: Int, at: Date, note: String? = nil) {
        self.number = number
        self.at = at
        self.note = note
    }

    /// The longest note: a mark names a moment, it is not a report.
    public static let noteLimit = 80

    /// `mark 2 at 12:03:04: backend redeployed`.
    func describe(_ timeZone: TimeZone) -> String {
        "mark \(number) at \(Format.clock(at, timeZone))" + (note.map { ": \($0)" } ?? "")
    }
}

/// The picture `z` holds on the screen while the state goes on taking events underneath.
/// A class only for the indirection (a state cannot hold a state by value); it never changes,
/// so two are equal when they are the same freeze.
public final class FrozenView: Equatable, Sendable {
    public let state: DashboardState

    init(_ state: DashboardState) {
        var held = state
        held.frozen = nil
        self.state = held
    }

    public static func == (a: FrozenView, b: FrozenView) -> Bool { a === b }

    /// What the screen shows while frozen: the held picture, with what the user is doing now
    /// (an overlay, a message, the focus, the zoom, the theme, reveal, marks, keys) and the
    /// screen's size on top. The overlay acts on the live state, so it must name what it acts
    /// on: a prompt over a picture focused elsewhere would say "vehicle" and switch a trip.
    func shown(over live: DashboardState) -> DashboardState {
        var shown = state
        shown.overlay = live.overlay
        shown.focus = live.focus
        shown.timelineMinutes = live.timelineMinutes
        shown.marks = live.marks
        shown.keys = live.keys
        shown.message = live.message
        shown.theme = live.theme
        shown.colorless = live.colorless
        shown.reveal = live.reveal
        shown.screenWidth = live.screenWidth
        shown.screenHeight = live.screenHeight
        shown.freezeBadge = "❄ FROZEN at \(Format.clock(state.now, live.timeZone)) · \(live.eventsWhileFrozen) event\(live.eventsWhileFrozen == 1 ? "" : "s") since (\(live.keys.label(.freeze)) resumes)"
        return shown
    }
}

/// `s`: what the screen showed, as text, for the runner to write beside the last events.
public struct SnapshotRequest: Equatable, Sendable {
    /// The screen's rows, trailing blanks trimmed.
    public var screen: [String]
    /// The screen's width in columns (the rows are trimmed, so they do not say it).
    public var width: Int
    public var at: Date

    public init(screen: [String], width: Int, at: Date) {
        self.screen = screen
        self.width = width
        self.at = at
    }
}
