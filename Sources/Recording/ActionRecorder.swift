import Dashboard
import Foundation

/// Takes each action the dashboard's loop applies, with its time: `--record` writes them to a
/// file (`RecordingWriter`), from which `tokendash replay` plays them back.
public protocol ActionRecorder: AnyObject {
    /// Called on the loop's thread, before `action` is reduced.
    func record(_ action: Action, at time: Date)
}
