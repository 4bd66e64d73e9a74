import LogReading
import ProviderVocabulary

/// The logs screen's playhead: the export shown as it stood at one instant, and played forward
/// as a recording plays (pause, speed, seek). Pure: time passes only when `advance` is told how
/// much did, so a test plays an hour's export in exact steps.
///
/// Forward, the calls up to the playhead are added to a running tally; back, the tally is built
/// again from the export's start, about a microsecond a call (`logs_seek_back_ms`: 0.3 s to the
/// middle of a 1 GB export). Snapshots of the tally to seek from would cost a copy of every ID's
/// tally each. At the end the summary is the read's own, in the order read, which is what
/// `--summary` prints.
public struct LogsPlayer: Sendable {
    /// Export seconds per second of playing: an hour's export plays in six seconds at the last.
    public static let speeds = [1, 10, 60, 600]
    /// Seek steps (seconds): the first at least a sixtieth of the span.
    static let steps: [Double] = [10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400]

    private let timeline: ExportTimeline
    /// The whole read's summary: what the end shows, and what the read says of itself (skipped
    /// entries, unknown names, the tap's findings) whatever the playhead.
    public let whole: LogSummary
    public let from: LogInstant
    public let to: LogInstant
    public private(set) var at: LogInstant
    public private(set) var speed: Int
    public private(set) var paused = true
    /// The calls folded into `tally`: those at or before `at`.
    private var cursor: Int
    private var tally = ExportTally()
    public private(set) var summary: LogSummary

    /// Nil when the export has no calls to play. Starts paused at the end: the whole export.
    public init?(_ timeline: ExportTimeline, whole: LogSummary, speed: Int = 60) {
        guard let from = timeline.from, let to = timeline.to else { return nil }
        self.timeline = timeline
        self.whole = whole
        self.from = from
        self.to = to
        at = to
        self.speed = Self.speeds.contains(speed) ? speed : 60
        cursor = timeline.count
        summary = whole
    }

    public var atEnd: Bool { cursor == timeline.count && at >= to }

    /// The playhead, nil at the end: where the screen's lane stops and quiet is measured to.
    public var playhead: LogInstant? { atEnd ? nil : at }

    /// Calls at or before the playhead, of all the export's kept calls.
    public var shown: (calls: Int, of: Int) { (cursor, timeline.count) }

    /// How far ← and → move: a sixtieth of the span, rounded up to a step a clock reads.
    public var step: Double {
        let sixtieth = from.seconds(to: to) / 60
        return Self.steps.first { $0 >= sixtieth } ?? Self.steps[Self.steps.count - 1]
    }

    public mutating func togglePause() {
        if paused { play() } else { paused = true }
    }

    /// Plays on from the playhead, or from the start when it is at the end.
    public mutating func play() {
        if atEnd { seek(to: from) }
        paused = false
    }

    public mutating func nextSpeed() {
        let index = Self.speeds.firstIndex(of: speed) ?? 0
        speed = Self.speeds[(index + 1) % Self.speeds.count]
    }

    public mutating func seek(by seconds: Double) { seek(to: at.adding(seconds: seconds)) }

    /// To the next instant a call was logged at, paused there.
    public mutating func stepToNextCall() {
        paused = true
        guard cursor < timeline.count else { return }
        seek(to: timeline.time(at: cursor))
    }

    /// Moves the playhead by `elapsed` × speed when playing; pauses at the end. Whether it moved.
    @discardableResult
    public mutating func advance(by elapsed: Duration) -> Bool {
        guard !paused else { return false }
        seek(to: at.adding(seconds: elapsed.timeInterval * Double(speed)))
        if at >= to { paused = true }
        return true
    }

    public mutating func seek(to instant: LogInstant) {
        at = min(max(instant, from), to)
        let target = timeline.count(through: at)
        if target < cursor {
            tally = ExportTally()
            cursor = 0
        }
        timeline.fold(cursor..<target, into: &tally)
        cursor = target
        summary = atEnd ? whole : partial()
    }

    /// The summary of the calls so far. A tap finding shows from its first quiet stretch on: the
    /// tap's verdict is about silences the playhead has reached.
    private func partial() -> LogSummary {
        var findings: [LoggedID: TapJoin.Finding]?
        if let tap = whole.tap {
            findings = tap.filter { _, finding in
                guard let first = finding.windows.first else { return false }
                return first.start <= at
            }
        }
        return LogSummary(
            tally: tally, skipped: whole.skipped, unknownTypes: whole.unknownTypes, unknownFields: whole.unknownFields,
            tap: findings, tapFetches: whole.tapFetches)
    }
}
