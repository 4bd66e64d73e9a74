import Foundation
import UICore

/// Time and number formatting shared by the panes. Times are local unless a test fixes the zone.
enum Format {
    /// `HH:MM:SS` in `timeZone`. Drawn for every log line of every frame, so it is arithmetic
    /// on the seconds and the zone's offset, not a Calendar and a format string.
    /// `text` in lines of at most `width` characters (`rest` for the lines after the first),
    /// broken at spaces, or inside a word longer than a line; past `maxLines` the last line is
    /// cut and ends in "…". The pane's errors and tokens and the scenario banner's ending use it.
    static func wrap(_ text: String, width: Int, rest restWidth: Int? = nil, maxLines: Int) -> [String] {
        var chunks: [String] = []
        var rest = Substring(text)
        var perLine = width
        while !rest.isEmpty && chunks.count < maxLines {
            if rest.count <= perLine {
                chunks.append(String(rest))
                rest = ""
                break
            }
            let window = rest.prefix(perLine + 1)
            let cut =
                window.lastIndex(of: " ").flatMap { $0 > rest.startIndex ? $0 : nil }
                ?? window.index(before: window.endIndex)
            chunks.append(String(rest[..<cut]))
            rest = rest[cut...].drop { $0 == " " }
            perLine = restWidth ?? width
        }
        if !rest.isEmpty, let last = chunks.popLast() { chunks.append(String(last.prefix(perLine - 1)) + "…") }
        return chunks
    }

    static func clock(_ date: Date, _ timeZone: TimeZone) -> String {
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        let s = (local % 86_400 + 86_400) % 86_400
        let h = s / 3600
        let m = s / 60 % 60
        let sec = s % 60
        return String(unsafeUninitializedCapacity: 8) { buffer in
            func digit(_ n: Int) -> UInt8 { UInt8(ascii: "0") + UInt8(truncatingIfNeeded: n) }
            buffer[0] = digit(h / 10)
            buffer[1] = digit(h % 10)
            buffer[2] = UInt8(ascii: ":")
            buffer[3] = digit(m / 10)
            buffer[4] = digit(m % 10)
            buffer[5] = UInt8(ascii: ":")
            buffer[6] = digit(sec / 10)
            buffer[7] = digit(sec % 10)
            return 8
        }
    }

    /// `42 s`, `3 m 05 s`, `1 h 02 m`.
    static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded(.down))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) m \(String(s % 60).leftPadded(2)) s" }
        return "\(s / 3600) h \(String(s / 60 % 60).leftPadded(2)) m"
    }

    /// `text` in at most `width` columns, cut in the middle: both ends of a long ID tell it apart.
    static func elideMiddle(_ text: String, _ width: Int) -> String {
        let n = text.count
        guard n > width else { return text }
        guard width >= 5 else { return String(text.prefix(max(0, width))) }
        let tail = (width - 1) / 2
        let head = width - 1 - tail
        return text.prefix(head) + "…" + text.suffix(tail)
    }

    static func milliseconds(_ seconds: TimeInterval) -> String {
        let ms = seconds * 1000
        guard ms < 10 else { return "\(Int(ms.rounded())) ms" }
        let tenths = Int((ms * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    /// `value` with one decimal, as `%.1f` prints it: drawn for every fleet row each frame, where
    /// Foundation's `String(format:)` cost more than the rest of the frame.
    static func tenths(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return String(format: "%.1f", value) }
        let scaled = Int64((value * 10).rounded(.toNearestOrEven))
        let magnitude = scaled.magnitude
        return (scaled < 0 ? "-" : "") + "\(magnitude / 10).\(magnitude % 10)"
    }

    static func percent(_ ratio: Double?) -> String {
        ratio.map { "\(Int(($0 * 100).rounded()))%" } ?? "–"
    }
}

extension String {
    /// Exactly `width` columns: cut, or followed by spaces (a table column).
    func fitted(_ width: Int) -> String {
        let n = count
        if n == width { return self }
        return n > width ? String(prefix(width)) : self + String(repeating: " ", count: width - n)
    }

    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

extension Character {
    /// The character as a message can quote it: a space, a control or an invisible one by name.
    var printable: String {
        if self == " " { return "space" }
        guard let scalar = unicodeScalars.first, unicodeScalars.count == 1 else { return String(self) }
        if scalar.value < 0x20 {
            return "Ctrl-" + String(UnicodeScalar(scalar.value + 0x40).map(Character.init) ?? "?")
        }
        if scalar.value == 0x7F || !scalar.properties.isGraphemeBase && !scalar.properties.isAlphabetic {
            return "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(4)
        }
        return String(self)
    }
}
