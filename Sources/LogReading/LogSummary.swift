import FleetAuth

/// `tokendash logs --summary`'s one JSON object, from a finished read:
/// {"event":"logs_summary","entries","skipped":{REASON: N},"span":{"from","to"},"ids":[…],
/// "versions":[…],"unknown":{"types":{…},"fields":{…}}}. Keys in that order; maps by key.
public struct LogSummary: Sendable {
    public var entries: Int
    public var skipped: [SkipReason: Int]
    public var from: LogInstant?
    public var to: LogInstant?
    public var ids: [IDTally]
    public var versions: [VersionRow]
    public var unknownTypes: [String: Int]
    public var unknownFields: [String: Int]

    public init(_ reader: ExportReader) {
        entries = reader.tally.entries
        skipped = reader.skipped
        from = reader.tally.from
        to = reader.tally.to
        ids = reader.tally.sortedIDs
        versions = VersionRow.table(ids)
        unknownTypes = reader.unknownTypes.counts
        unknownFields = reader.unknownFields.counts
    }

    /// Whether an entry names one of `codes` (compared without case), or, for "silence", any ID
    /// has a silence: what `--fail-on` asks.
    public func names(anyOf wanted: [String]) -> [String] {
        var found: [String] = []
        for item in wanted {
            if item.lowercased() == "silence" {
                if ids.contains(where: { !$0.silences.isEmpty }) { found.append(item) }
            } else if ids.contains(where: { $0.errors.keys.contains { $0.caseInsensitiveEquals(item) } }) {
                found.append(item)
            }
        }
        return found
    }

    public var json: String {
        var out = "{\"event\":\"logs_summary\",\"entries\":\(entries),\"skipped\":"
        out += Self.object(skipped.sorted { $0.key < $1.key }.map { ($0.key.rawValue, String($0.value)) })
        out += ",\"span\":{\"from\":\(Self.time(from)),\"to\":\(Self.time(to))},\"ids\":["
        out += ids.map(Self.idObject).joined(separator: ",")
        out += "],\"versions\":["
        out += versions.map(Self.versionObject).joined(separator: ",")
        out += "],\"unknown\":{\"types\":\(Self.counts(unknownTypes)),\"fields\":\(Self.counts(unknownFields))}}"
        return out
    }

    static func idObject(_ tally: IDTally) -> String {
        let silences = tally.silences
        let longest = silences.map(\.seconds).max() ?? 0
        let silenceList = silences.map {
            "{\"start\":\"\($0.start)\",\"seconds\":\(number($0.seconds))}"
        }
        return object([
            ("kind", string(tally.id.kind.rawValue)), ("id", string(tally.id.id)), ("calls", String(tally.calls)),
            ("errors", counts(tally.errors)), ("calls_per_minute", number(tally.callsPerMinute)),
            ("longest_silence_s", number(longest)), ("silences", "[" + silenceList.joined(separator: ",") + "]"),
            ("platform", optional(tally.header?.platform)), ("sdk_type", optional(tally.header?.sdkType)),
            ("sdk_version", optional(tally.header?.sdkVersion)), ("os_version", optional(tally.header?.osVersion)),
            ("methods", counts(tally.methods)), ("first", time(tally.first)), ("last", time(tally.last)),
        ])
    }

    static func versionObject(_ row: VersionRow) -> String {
        object([
            ("platform", optional(row.platform)), ("sdk_type", optional(row.sdkType)),
            ("sdk_version", optional(row.sdkVersion)), ("devices", String(row.devices)), ("calls", String(row.calls)),
            ("errors", String(row.errors)), ("silences", String(row.silences)),
            ("silent_devices", String(row.silentDevices)),
        ])
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    static func counts(_ tally: [String: Int]) -> String {
        object(tally.sorted { $0.key < $1.key }.map { ($0.key, String($0.value)) })
    }

    static func time(_ instant: LogInstant?) -> String { instant.map { "\"\($0)\"" } ?? "null" }

    static func optional(_ text: String?) -> String { text.map(string) ?? "null" }

    /// At most three decimals, no trailing zeros: 12, 0.5, 4.333.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(rounded)
    }

    /// A JSON string, escaped as every other JSON tokendash writes (`JSONStringWriter`).
    static func string(_ text: String) -> String {
        var out = ""
        JSONStringWriter.append(text, to: &out)
        return out
    }
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
