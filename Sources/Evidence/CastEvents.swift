import Foundation

/// The event lines of an asciicast v2, after its header: `[time, "o", data]` for output,
/// `[time, "r", "WxH"]` for a resize, `[time, "m", label]` for a marker (a player lists
/// markers as chapters). Times are seconds from the session's start, never going back.
public struct CastEvents: Sendable {
    public private(set) var text = ""
    private var last = 0.0

    public init() {}

    public mutating func output(_ data: String, at seconds: Double) {
        guard !data.isEmpty else { return }
        append(seconds, "o", data)
    }

    public mutating func resize(width: Int, height: Int, at seconds: Double) {
        append(seconds, "r", "\(width)x\(height)")
    }

    public mutating func marker(_ label: String, at seconds: Double) {
        append(seconds, "m", label)
    }

    /// Hands over what is written so far and starts empty: a live cast writes it out in batches.
    public mutating func take() -> String {
        defer { text = "" }
        return text
    }

    private mutating func append(_ seconds: Double, _ code: String, _ data: String) {
        // A clock stepped back (or an edited recording) must not make a player jump backwards.
        last = max(last, seconds.isFinite ? seconds : last)
        text += "[" + String(format: "%.6f", last) + ", \"" + code + "\", " + Self.quoted(data) + "]\n"
    }

    /// `data` as a JSON string: quotes, backslashes and control characters (ESC among them) escaped.
    static func quoted(_ data: String) -> String {
        var out = "\""
        out.unicodeScalars.reserveCapacity(data.utf8.count + 16)
        for scalar in data.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
