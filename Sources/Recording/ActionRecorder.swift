import Dashboard
import Foundation
import RecordingFormat

/// Takes each action the dashboard's loop applies, with its time: `--record` writes them to a
/// file (`RecordingWriter`), from which `tokendash replay` plays them back.
public protocol ActionRecorder: AnyObject {
    /// Called on the loop's thread, before `action` is reduced.
    func record(_ action: Action, at time: Date)
}

/// An action as the writer queues it: made into its line when written out, off the loop's thread.
struct ActionEntry: RecordingEntry {
    var action: Action
    func line(at time: Date, base: RecordingTimeBase) -> RecordedLine? { RecordedLine(action, at: time, base: base) }
}

extension RecordingWriter: ActionRecorder {
    public func record(_ action: Action, at time: Date) { record(entry: ActionEntry(action: action), at: time) }
}
