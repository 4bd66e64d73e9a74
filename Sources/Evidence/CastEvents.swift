import Foundation
import JSONValues
import ProviderVocabulary

/// The event lines of an asciicast v2, after its header: `[time, "o", data]` for output,
/// `[time, "r", "WxH"]` for a resize, `[time, "m", label]` for a marker (a player lists
/// markers as chapters). Times are seconds from the session's start, never going back.
struct CastEvents: Sendable {
    private(set) var text = ""
    private var last = 0.0

    init() {}

    mutating func output(_ data: String, at seconds: Double) {
        guard !data.isEmpty else { return }
        append(seconds, "o", data)
    }

    mutating func resize(width: Int, height: Int, at seconds: Double) {
        append(seconds, "r", "\(width)x\(height)")
    }

    mutating func marker(_ label: String, at seconds: Double) {
        append(seconds, "m", label)
    }

    /// Hands over what is written so far and starts empty: a live cast writes it out in batches.
    mutating func take() -> String {
        defer { text = "" }
        return text
    }

    private mutating func append(_ seconds: Double, _ code: String, _ data: String) {
        // A clock stepped back (or an edited recording) must not make a player jump backwards.
        last = max(last, seconds.isFinite ? seconds : last)
        text += "[" + String(format: "%.6f", last) + ", \"" + code + "\", " + JSONStringWriter.quoted(data) + "]\n"
    }
}
