import Dashboard
import Recording

/// The terminal size frames of a recording are drawn at: the recorded terminal's, following its
/// resizes, or `fallback` until (or unless) the recording says.
struct FrameSize: Sendable {
    private(set) var width: Int
    private(set) var height: Int

    /// The size when the recording began: its first resize, else `fallback`.
    init(_ recording: Recording, fallback: (width: Int, height: Int)) {
        (width, height) = fallback
        for timed in recording.actions {
            if case .resized(let w, let h) = timed.action, w > 0, h > 0 {
                (width, height) = (w, h)
                break
            }
        }
    }

    /// Follows `action` if it is a resize to another size; says whether it was.
    mutating func follow(_ action: Action) -> Bool {
        guard case .resized(let w, let h) = action, w > 0, h > 0, w != width || h != height else { return false }
        (width, height) = (w, h)
        return true
    }
}
