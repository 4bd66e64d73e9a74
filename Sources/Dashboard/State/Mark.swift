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
