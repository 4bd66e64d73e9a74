import FleetAuth

/// Keys matched without regard to case, underscores or a leading `@`, because the export shapes
/// spell the same field differently: Cloud Logging's JSON writes `insertId`, `jsonPayload` and
/// `@type`; a BigQuery sink lowercases every column and writes `@type` as `_type`
/// (https://cloud.google.com/logging/docs/export/bigquery, "BigQuery schema for logs");
/// fleet-debugger lowercased old datasets itself (googlemaps/fleet-debugger src/TripLogs.js,
/// `toLowerKeys`). "insertId", "insert_id", "insertid" and "INSERTID" all read as `insertid`.
enum LogKeys {
    /// `key` lowercased with `_`, `@` and `-` left out.
    static func normalized(_ key: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in key.unicodeScalars {
            switch scalar {
            case "_", "@", "-": continue
            case "A"..."Z": out.append(Unicode.Scalar(scalar.value + 32)!)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The member of `object` whose key normalizes to `name` (given normalized).
    static func field(_ object: JSONObject, _ name: String) -> JSONValue? {
        for member in object where normalized(member.key) == name { return member.value }
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
