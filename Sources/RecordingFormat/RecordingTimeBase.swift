import Foundation

/// Times in a recording are seconds since its start. Kept as offsets from the start's exact
/// `timeIntervalSinceReferenceDate` (the `Date`'s own storage), so a time read back is the very
/// `Date` recorded: replayed states equal live ones, and `--to-watch` prints `watch`'s timestamps.
public struct RecordingTimeBase: Sendable, Equatable {
    public var start: Double

    public init(start: Date) { self.start = start.timeIntervalSinceReferenceDate }
    public init(reference: Double) { start = reference }

    public var startDate: Date { Date(timeIntervalSinceReferenceDate: start) }
    public func offset(_ date: Date) -> Double { date.timeIntervalSinceReferenceDate - start }
    public func date(_ offset: Double) -> Date { Date(timeIntervalSinceReferenceDate: start + offset) }
}
