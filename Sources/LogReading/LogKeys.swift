import JSONValues
import ProviderVocabulary

/// Keys matched without regard to case, underscores or a leading `@`, because the export shapes
/// spell the same field differently: Cloud Logging's JSON writes `insertId`, `jsonPayload` and
/// `@type`; a BigQuery sink lowercases every column and writes `@type` as `_type`
/// (https://cloud.google.com/logging/docs/export/bigquery, "BigQuery schema for logs");
/// fleet-debugger lowercased old datasets itself (googlemaps/fleet-debugger src/TripLogs.js,
/// `toLowerKeys`). "insertId", "insert_id", "insertid" and "INSERTID" all read as `insertid`.
enum LogKeys {
    /// `key` lowercased with `_`, `@` and `-` left out. Byte by byte: it runs for every key of
    /// every entry, and a key already in that form (most BigQuery columns) is returned as it is.
    static func normalized(_ key: String) -> String {
        guard key.utf8.contains(where: changes) else { return key }
        var key = key
        return key.withUTF8 { normalized(bytes: $0) }
    }

    /// The same of a key's bytes, written straight into the string: no array between (keys are
    /// short, so most such strings are stored inline, with no allocation at all).
    static func normalized(bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            var count = 0
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: "-"): continue
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): out[count] = byte + 32
                default: out[count] = byte
                }
                count += 1
            }
            return count
        }
    }

    private static func changes(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-")
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Whether `key` normalizes to `name` (given normalized), without building the normalized key.
    static func matches(_ key: String, _ name: String) -> Bool {
        var wanted = name.utf8.makeIterator()
        for byte in key.utf8 {
            if byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-") { continue }
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            guard wanted.next() == lowered else { return false }
        }
        return wanted.next() == nil
    }

    /// The member of `object` whose key normalizes to `name` (given normalized).
    static func field(_ object: JSONObject, _ name: String) -> JSONValue? {
        for member in object where matches(member.key, name) { return member.value }
        return nil
    }

    /// `text` with `%2F` (either case) read as `/`, as a `logName` writes the log's own slash.
    static func slashesDecoded(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var text = text
        // Written straight into the string, as `normalized(bytes:)`: every entry's logName has one.
        return text.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { out in
                var count = 0
                var index = 0
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                        bytes[index + 1] == UInt8(ascii: "2"), bytes[index + 2] | 0x20 == UInt8(ascii: "f")
                    {
                        out[count] = UInt8(ascii: "/")
                        index += 3
                    } else {
                        out[count] = bytes[index]
                        index += 1
                    }
                    count += 1
                }
                return count
            }
        }
    }

    /// What follows the first `marker` in `text`, or nil when it is not there.
    static func after(_ marker: String, in text: String) -> Substring? {
        let needle = Array(marker.utf8)
        let haystack = text.utf8
        guard let first = needle.first else { return text[...] }
        var start = haystack.startIndex
        while let found = haystack[start...].firstIndex(of: first) {
            if haystack[found...].starts(with: needle) {
                return text[haystack.index(found, offsetBy: needle.count)...]
            }
            start = haystack.index(after: found)
        }
        return nil
    }

    /// The value at `path` (each step normalized), through objects only.
    static func path(_ value: JSONValue?, _ steps: String...) -> JSONValue? {
        var current = value
        for step in steps {
            guard case .object(let object)? = current else { return nil }
            current = field(object, step)
        }
        return current
    }

    /// A value as text: strings as they are, numbers and booleans written out, and BigQuery's
    /// `{"value": …}` wrapper of a scalar column unwrapped.
    static func text(_ value: JSONValue?) -> String? {
        switch unwrapped(value) {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .double(let d)?: return String(d)
        case .bool(let b)?: return String(b)
        default: return nil
        }
    }

    /// BigQuery's JSON export may wrap a scalar as `{"value": …}` (the issue's note on exports;
    /// `bq` and the BigQuery API write a TIMESTAMP or a NUMERIC that way in some formats).
    static func unwrapped(_ value: JSONValue?) -> JSONValue? {
        if case .object(let object)? = value, object.members.count == 1, normalized(object.members[0].key) == "value" {
            return object.members[0].value
        }
        return value
    }
}
