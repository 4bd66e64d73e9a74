import Foundation
import JSONValues
import ProviderVocabulary
import Testing

/// The hand-written JSON strings (the provider host's request lines, a cast's frames) read back as
/// what was written, and match JSONEncoder's own text byte for byte.
@Suite(.timeLimit(.minutes(15))) struct JSONStringWriterTests {
    static let samples: [String] = [
        "", "vehicle-42", "quote \" and backslash \\", "line\nbreak\r\ttab", "\u{1B}[31mred\u{1B}[0m",
        "\u{00}\u{01}\u{08}\u{0C}\u{1F}", "del \u{7F}", "ünïcödé 🚗 trip", "slash / stays",
        "ü\u{1B}[1m🚗\"x\\\u{1B}", "\u{1B}[12;40H┌─ Trips ─┐\u{1B}[0;1;37m│ é\u{301} │",
    ]

    @Test(arguments: samples)
    func aStringIsWrittenAsJSONEncoderWritesIt(_ text: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let expected = String(decoding: try encoder.encode(text), as: UTF8.self)
        #expect(JSONStringWriter.quoted(text) == expected)
        let back = try JSONDecoder().decode(String.self, from: Data(JSONStringWriter.quoted(text).utf8))
        #expect(back == text)
    }

    @Test func appendingKeepsWhatTheLineHeld() {
        var line = #"{"id":"#
        JSONStringWriter.append("a\"b", to: &line)
        #expect(line == #"{"id":"a\"b""#)
    }
}
