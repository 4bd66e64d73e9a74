/// A string written as JSON the way `JSONEncoder` writes it: the quote and the backslash escaped,
/// control characters as their short escapes or `\u00XX`, everything else as it is. For lines
/// written by hand on hot paths (the provider host's requests, a cast's frames), so each writer
/// does not keep its own rules.
public enum JSONStringWriter {
    /// Appends `text` as a JSON string, quotes included.
    public static func append(_ text: String, to line: inout String) {
        line += "\""
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            line += text
            line += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\u{08}": line += "\\b"
            case "\u{0C}": line += "\\f"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    /// `text` as a JSON string, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2)
        append(text, to: &out)
        return out
    }
}
