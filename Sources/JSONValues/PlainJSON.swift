import Foundation

/// A hand parser for the plain JSON that token answers and JWT parts are made of: objects, arrays,
/// strings without `\u` escapes, integers of up to 18 digits, `true`, `false`, `null`. It runs for
/// every answer the tap reads, where `JSONDecoder` (a thrown error for every type `JSONValue`
/// tries before the right one) cost more than the rest of the reading. Anything it does not know
/// for certain reads as `JSONDecoder` reads it (fractions, exponents, `\u` escapes, a repeated
/// key, a bare value at the top, deep nesting, bytes that are not UTF-8) makes it return nil,
/// and `JSONDecoder` decides: a value reads the same either way (JSONValueDecodingTests).
/// Measured (docs/benchmarks.md, `tap_reader_cpu_per_exchange_us`, `tokendash-bench tap-reader`,
/// 2026-11-30): the tap's whole reading of an exchange with this reader and the hand base64url
/// took 6.65-7.48 µs, Foundation alone parsing the same body and payload 22.6-23.8 µs.
enum PlainJSON {
    /// Nesting deeper than this is left to `JSONDecoder`, which has its own limit.
    static let depthLimit = 64

    static func parse(_ data: Data) -> JSONValue? {
        data.withUnsafeBytes { raw -> JSONValue? in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            // Room for a token's objects at once: grown from empty it was allocated four times a parse.
            parser.members.reserveCapacity(16)
            parser.skipSpace()
            guard parser.peek == UInt8(ascii: "{") || parser.peek == UInt8(ascii: "[") else { return nil }
            guard let value = parser.value(depth: 0) else { return nil }
            parser.skipSpace()
            return parser.atEnd ? value : nil
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// The members of the objects open, innermost last.
        var members: [JSONObject.Element] = []

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() { index = JSONSpace.end(in: bytes, from: index) }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < PlainJSON.depthLimit, let byte = peek else { return nil }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer()
            default: return nil
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return nil }
            let start = word.utf8Start
            for offset in 0..<count where bytes[index + offset] != start[offset] { return nil }
            index += count
            return value
        }

        /// `-?(0|[1-9][0-9]*)` of at most 18 digits and not `-0`, followed by neither a fraction nor an
        /// exponent: an integer an `Int64` holds, as `JSONDecoder` reads it.
        mutating func integer() -> JSONValue? {
            var negative = false
            if peek == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            let start = index
            var magnitude: Int64 = 0
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                // A 19th digit could overflow: larger numbers are JSONDecoder's.
                guard index - start < 18 else { return nil }
                magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0"))
                index += 1
            }
            let digits = index - start
            guard digits > 0 else { return nil }
            // A leading zero, and `-0`, are JSONDecoder's to judge.
            if bytes[start] == UInt8(ascii: "0"), digits > 1 || negative { return nil }
            if let byte = peek, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                return nil
            }
            return .int(negative ? -magnitude : magnitude)
        }

        /// A string with no `\u` escape and no control character, its bytes UTF-8.
        mutating func string() -> String? {
            index += 1
            let start = index
            // Past the plain ASCII first, eight bytes at a time: a token is hundreds of them.
            index = ByteScan.skipPlain(bytes, from: index) { word in
                ByteScan.has(word, UInt8(ascii: "\"")) || ByteScan.has(word, UInt8(ascii: "\\"))
                    || ByteScan.hasControlOrNonASCII(word)
            }
            var escaped = false
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    if escaped { return Self.unescape(content) }
                    // ASCII is UTF-8 as it stands; anything else is checked.
                    return ascii ? String(decoding: content, as: UTF8.self) : String(validating: content, as: UTF8.self)
                }
                if byte >= 0x80 { ascii = false }
                if byte < 0x20 { return nil }
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    index += 1
                    guard index < bytes.count else { return nil }
                    switch bytes[index] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        break
                    default: return nil
                    }
                }
                index += 1
            }
            return nil
        }

        /// The escapes `string` let through, replaced by what they stand for.
        static func unescape(_ content: UnsafeBufferPointer<UInt8>) -> String? {
            var out: [UInt8] = []
            out.reserveCapacity(content.count)
            var i = 0
            while i < content.count {
                let byte = content[i]
                guard byte == UInt8(ascii: "\\") else {
                    out.append(byte)
                    i += 1
                    continue
                }
                i += 1
                switch content[i] {
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                default: out.append(content[i])
                }
                i += 1
            }
            return String(validating: out, as: UTF8.self)
        }

        mutating func array(depth: Int) -> JSONValue? {
            index += 1
            var elements: [JSONValue] = []
            skipSpace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                switch peek {
                case UInt8(ascii: ",")?: index += 1
                case UInt8(ascii: "]")?:
                    index += 1
                    return .array(elements)
                default: return nil
                }
            }
        }

        mutating func object(depth: Int) -> JSONValue? {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject())
            }
            // The members wait on `members` (shared by the nested objects, each above its parent's)
            // until the object ends, so its list is made once at its size.
            let first = members.count
            defer { members.removeLast(members.count - first) }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace()
                guard let element = value(depth: depth + 1) else { return nil }
                members.append((key, element))
                skipSpace()
                switch peek {
                case UInt8(ascii: ",")?: index += 1
                case UInt8(ascii: "}")?:
                    index += 1
                    // A repeated key: which one JSONDecoder keeps is its business.
                    return JSONObject(distinct: members[first...]).map(JSONValue.object)
                default: return nil
                }
            }
        }
    }
}

/// JSON's white space (RFC 8259: space, tab, line feed, carriage return), for the hand parsers.
public enum JSONSpace {
    /// The index of the first byte at or after `index` that is not white space.
    @inlinable public static func end(in bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        var index = index
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }
}
