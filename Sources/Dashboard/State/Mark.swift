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

/// `s`: what the screen showed, for the runner to write beside the last events. The reducer
/// hands over the picture; it is drawn into text when written, by the runtime.
public struct SnapshotRequest: Equatable, Sendable {
    /// The state as the screen showed it, less what a snapshot leaves out.
    public var picture: DashboardState
    public var width: Int
    public var height: Int
    public var at: Date

    public init(picture: DashboardState, width: Int, height: Int, at: Date) {
        self.picture = picture
        self.width = width
        self.height = height
        self.at = at
    }

    /// The screen's rows, trailing blanks trimmed.
    public var screen: [String] {
        Renderer.render(picture, width: width, height: height).lines.map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
    }
}
