import JSONValues
import ProviderVocabulary

/// Reads one entry's JSON into the few values `LogEntryDecoder` looks at, checking the whole of it
/// as JSON but building nothing of the rest. A Fleet Engine entry is mostly its request and
/// response (a vehicle, its route, its locations: 1 to 2 KB of an `update_vehicle` entry), of
/// which the reader wants only `request.header`. Decoded whole by `JSONDecoder` (every entry has
/// fractions, so the plain parser never took it), that tree cost 70 % of a read that ran at a
/// fifth of `jq -c .`'s speed; issue 60 asks for ten times jq's.
///
/// With `LogEntryDecoder` it is the reference path: `LogEntryByteDecoder` reads entries in one
/// pass and hands it what it does not read the same for certain, and every damaged entry, whose
/// failure and offset are named here.
///
/// Hand-written because no maintained JSON library but Foundation's resolves for this package
/// (the machine's package list), and Foundation's builds every value. What it accepts and
/// refuses is JSON's grammar (RFC 8259), so an entry garbled anywhere is still named garbled.
enum EntryScanner {
    /// Why an entry is not JSON, and where (a byte offset within the entry).
    struct Failure: Error, Equatable {
        var reason: String
        var offset: Int
    }

    /// What of a value to build: all of it, or of an object some members (by normalized key),
    /// with the others dropped or kept as their key alone (for naming unknown fields).
    indirect enum Keep {
        case all
        case members(_ pick: @Sendable (String) -> Keep?, otherKeys: Bool)
    }

    /// Deeper nesting than this is refused; an entry of Fleet Engine's nests about ten deep.
    static let depthLimit = 512

    /// The top of an entry: its own fields whole (they are small), `resource.type`, and of a
    /// payload (`jsonPayload`, or a BigQuery `jsonpayload_…` column) its `@type`,
    /// `parentInsertId`, `errorResponse` and `request.header`; every top-level key is kept by
    /// name so that unknown ones can be counted.
    static let entry = Keep.members(
        { key in
            switch key {
            case "insertid", "logname", "timestamp", "receivetimestamp", "servertime", "severity", "parentinsertid",
                "labels", "split":
                return .all
            case "resource": return .members({ $0 == "type" ? .all : nil }, otherKeys: false)
            default: return key.hasPrefix("jsonpayload") ? payload : nil
            }
        }, otherKeys: true)

    static let payload = Keep.members(
        { key in
            switch key {
            case "type", "parentinsertid", "errorresponse": return .all
            case "request": return .members({ $0 == "header" ? .all : nil }, otherKeys: false)
            default: return nil
            }
        }, otherKeys: false)

    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, keep: Keep = entry) throws(Failure) -> JSONValue {
        var scanner = Scanner(bytes: bytes)
        scanner.skipSpace()
        let value = try scanner.value(keep, depth: 0)
        scanner.skipSpace()
        guard scanner.index == bytes.count else { throw scanner.failure("more after the value") }
        return value ?? .null
    }

    /// The one value at the start of `bytes`, built as `keep` says, and the bytes it took; nil
    /// when it is not whole there, cut by the end of the bytes or not JSON (the caller reads it
    /// again the careful way, which finds its end, or says where it broke).
    static func scanPrefix(_ bytes: UnsafeBufferPointer<UInt8>, keep: Keep = entry) -> (JSONValue, Int)? {
        var scanner = Scanner(bytes: bytes)
        guard let value = try? scanner.value(keep, depth: 0) else { return nil }
        return (value, scanner.index)
    }

    /// The string whose opening quote is at `quote`, decoded as `scan` decodes one; nil when it
    /// is not a string there.
    static func string(in bytes: UnsafeBufferPointer<UInt8>, at quote: Int) -> String? {
        var scanner = Scanner(bytes: bytes, index: quote)
        return try? scanner.string()
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        func failure(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        /// Steps over `byte` when it is next (after white space), and says whether it was.
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard peek == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpace() { index = JSONSpace.end(in: bytes, from: index) }

        /// The value here, built as `keep` says, or nil when `keep` is nil (checked, not built).
        mutating func value(_ keep: Keep?, depth: Int) throws(Failure) -> JSONValue? {
            guard depth < EntryScanner.depthLimit else {
                throw failure("nested deeper than \(EntryScanner.depthLimit)")
            }
            guard let byte = peek else { throw failure("the entry ends where a value should be") }
            switch byte {
            case UInt8(ascii: "{"): return try object(keep, depth: depth)
            case UInt8(ascii: "["): return try array(keep, depth: depth)
            case UInt8(ascii: "\""):
                if keep == nil {
                    try skipString()
                    return nil
                }
                return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true), keep)
            case UInt8(ascii: "f"): return try literal("false", .bool(false), keep)
            case UInt8(ascii: "n"): return try literal("null", .null, keep)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number(keep)
            default: throw failure("unexpected \(Self.describe(byte))")
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue, _ keep: Keep?) throws(Failure) -> JSONValue? {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { throw failure("the entry ends inside \(word)") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                throw failure("unexpected \(Self.describe(bytes[index]))")
            }
            index += count
            return keep == nil ? nil : value
        }

        mutating func object(_ keep: Keep?, depth: Int) throws(Failure) -> JSONValue? {
            index += 1
            var built: JSONObject? = keep == nil ? nil : JSONObject()
            if take(UInt8(ascii: "}")) { return built.map(JSONValue.object) }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw failure("an object key is not a string") }
                var member: Keep?
                var name: String?
                switch keep {
                case nil: try skipString()
                case .all:
                    name = try string()
                    member = .all
                case .members(let pick, let otherKeys):
                    // Picked by the key's bytes, normalized as read when it has no escape: the
                    // key itself is built only when it is kept.
                    let start = index + 1
                    let plain = try skipPlainString()
                    if plain {
                        let raw = UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
                        member = pick(LogKeys.normalized(bytes: raw))
                        if member != nil || otherKeys { name = String(decoding: raw, as: UTF8.self) }
                    } else {
                        index = start - 1
                        let key = try string()
                        member = pick(LogKeys.normalized(key))
                        if member != nil || otherKeys { name = key }
                    }
                }
                guard take(UInt8(ascii: ":")) else { throw failure("no ':' after an object key") }
                skipSpace()
                let value = try self.value(member, depth: depth + 1)
                if let name { built?[name] = value ?? .null }
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { throw failure("no ',' or '}' after an object member") }
                return built.map(JSONValue.object)
            }
        }

        mutating func array(_ keep: Keep?, depth: Int) throws(Failure) -> JSONValue? {
            index += 1
            var built: [JSONValue]? = keep == nil ? nil : []
            if take(UInt8(ascii: "]")) { return built.map(JSONValue.array) }
            while true {
                skipSpace()
                let element = try value(keep == nil ? nil : .all, depth: depth + 1)
                if let element { built?.append(element) }
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "]")) else { throw failure("no ',' or ']' after an array element") }
                return built.map(JSONValue.array)
            }
        }

        /// `skipString`, and whether the string held no escape.
        mutating func skipPlainString() throws(Failure) -> Bool {
            let start = index
            try skipString()
            return !UnsafeBufferPointer(rebasing: bytes[start..<index]).contains(UInt8(ascii: "\\"))
        }

        /// A string checked and passed over: its escapes well formed, no raw control byte.
        mutating func skipString() throws(Failure) {
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return
                }
                if byte == UInt8(ascii: "\\") {
                    _ = try escape()
                    continue
                }
                guard byte >= 0x20 else { throw failure("a raw control byte in a string") }
                index += 1
            }
            throw failure("a string is not closed")
        }

        /// A string read: the bytes between its quotes as they are when it has no escapes (the
        /// usual case), else built one scalar at a time. Bytes that are not UTF-8 read as U+FFFD.
        mutating func string() throws(Failure) -> String {
            let start = index + 1
            try skipString()
            let body = UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            guard body.contains(UInt8(ascii: "\\")) else { return String(decoding: body, as: UTF8.self) }
            var scalars = String.UnicodeScalarView()
            var utf8: [UInt8] = []
            var position = start
            let end = index - 1
            func flush() {
                scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
                utf8.removeAll(keepingCapacity: true)
            }
            while position < end {
                if bytes[position] == UInt8(ascii: "\\") {
                    flush()
                    index = position
                    scalars.append(try escape())
                    position = index
                } else {
                    utf8.append(bytes[position])
                    position += 1
                }
            }
            flush()
            index = end + 1
            return String(scalars)
        }

        /// The escape at `index` (its backslash), decoded; a lone surrogate reads as U+FFFD.
        mutating func escape() throws(Failure) -> Unicode.Scalar {
            guard index + 1 < bytes.count else { throw failure("a string ends in an escape") }
            let kind = bytes[index + 1]
            index += 2
            switch kind {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let high = try hex4()
                if (0xD800..<0xDC00).contains(high), bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    let mark = index
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                    }
                    index = mark
                }
                return Unicode.Scalar(high) ?? "\u{FFFD}"
            default:
                index -= 1
                throw failure("\\\(Self.describe(kind)) is no escape")
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.count - index >= 4 else { throw failure("a \\u escape is cut short") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("a \\u escape has \(Self.describe(byte)), not a hex digit")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// A number as JSON writes one; built as an integer when it has no fraction or exponent
        /// and fits, else as a double.
        mutating func number(_ keep: Keep?) throws(Failure) -> JSONValue? {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, Self.isDigit(first) else { throw failure("a '-' without digits") }
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard let digit = peek, Self.isDigit(digit) else { throw failure("a '.' without digits after it") }
                skipDigits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard let digit = peek, Self.isDigit(digit) else { throw failure("an exponent without digits") }
                skipDigits()
            }
            guard keep != nil else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if integral, let whole = Int64(text) { return .int(whole) }
            return .double(Double(text) ?? .nan)
        }

        mutating func skipDigits() {
            while let byte = peek, Self.isDigit(byte) { index += 1 }
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        static func describe(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        }
    }
}
