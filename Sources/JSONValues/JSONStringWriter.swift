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
        line += escaped(text)
        line += "\""
    }

    /// The text between the quotes, made from its UTF-8 bytes: runs that need no escape are
    /// copied whole (a cast's frame is mostly such runs between its escape characters), and
    /// bytes of two or more make up the scalars above 0x7F, which JSONEncoder leaves as they are.
    private static func escaped(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + bytes.count / 4)
            var run = 0
            for (i, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: out.append(UInt8(ascii: "\""))
                case 0x5C: out.append(UInt8(ascii: "\\"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    out.append(contentsOf: "u00".utf8)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
            return String(decoding: out, as: UTF8.self)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2)
        append(text, to: &out)
        return out
    }
}
