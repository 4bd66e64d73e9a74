import JSONValues
import ProviderVocabulary

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
    /// With `--tap`: what the tap's fetches say of each ID, and how many it saw in all.
    public var tap: [LoggedID: TapJoin.Finding]?
    public var tapFetches = 0

    /// - Parameter tap: the join of a tap recording's fetches of the same hours (made from this
    ///   reader's tally); IDs it saw that the logs never name are listed too, with no calls.
    public init(_ reader: ExportReader, tap join: TapJoin? = nil) {
        // Every ID the logs or the tap name: the join says something of each.
        let findings = join.map { join in
            Dictionary(
                uniqueKeysWithValues: Set(reader.tally.ids.keys).union(join.ids).map { ($0, join.finding($0)) })
        }
        self.init(
            tally: reader.tally, skipped: reader.skipped, unknownTypes: reader.unknownTypes.counts,
            unknownFields: reader.unknownFields.counts, tap: findings, tapFetches: join?.total ?? 0)
    }

    /// The summary of `tally` (all of a read, or its calls up to an instant, as the logs screen
    /// plays it); with `tap`, every ID it names is listed, those the tally lacks with no calls.
    public init(
        tally: ExportTally, skipped: [SkipReason: Int], unknownTypes: [String: Int], unknownFields: [String: Int],
        tap findings: [LoggedID: TapJoin.Finding]? = nil, tapFetches: Int = 0
    ) {
        entries = tally.entries
        self.skipped = skipped
        from = tally.from
        to = tally.to
        ids = tally.sortedIDs
        self.unknownTypes = unknownTypes
        self.unknownFields = unknownFields
        guard let findings else {
            versions = VersionRow.table(ids)
            return
        }
        ids = (ids + findings.keys.filter { tally.ids[$0] == nil }.map(IDTally.init(id:))).sorted { $0.id < $1.id }
        tap = findings
        self.tapFetches = tapFetches
        versions = VersionRow.table(ids, explained: Set(findings.values.filter { $0.explained > 0 }.map(\.id)))
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
        // Written into the one string: 10,000 IDs made some 300,000 small strings to join.
        out.reserveCapacity(out.utf8.count + ids.count * 400)
        for (index, tally) in ids.enumerated() {
            if index > 0 { out += "," }
            Self.writeIDObject(tally, tap: tap?[tally.id], to: &out)
        }
        out += "],\"versions\":["
        out += versions.map(Self.versionObject).joined(separator: ",")
        out += "]"
        if let tap { out += ",\"tap\":" + Self.tapTotals(tap, fetches: tapFetches) }
        out += ",\"unknown\":{\"types\":\(Self.counts(unknownTypes)),\"fields\":\(Self.counts(unknownFields))}}"
        return out
    }

    /// {"kind","id","calls","errors","calls_per_minute","longest_silence_s","silences","platform",
    /// "sdk_type","sdk_version","os_version","methods","first","last"} and with a tap recording
    /// "tap_explained" and "tap".
    static func writeIDObject(_ tally: IDTally, tap: TapJoin.Finding?, to out: inout String) {
        let silences = tally.silences
        let longest = silences.map(\.seconds).max() ?? 0
        out += "{\"kind\":"
        JSONStringWriter.append(tally.id.kind.rawValue, to: &out)
        out += ",\"id\":"
        JSONStringWriter.append(tally.id.id, to: &out)
        out += ",\"calls\":"
        out += String(tally.calls)
        out += ",\"errors\":"
        writeCounts(tally.errors, to: &out)
        out += ",\"calls_per_minute\":"
        out += number(tally.callsPerMinute)
        out += ",\"longest_silence_s\":"
        out += number(longest)
        out += ",\"silences\":["
        for (index, silence) in silences.enumerated() {
            if index > 0 { out += "," }
            out += "{\"start\":\"\(silence.start)\",\"seconds\":\(number(silence.seconds))}"
        }
        out += "],\"platform\":"
        writeOptional(tally.header?.platform, to: &out)
        out += ",\"sdk_type\":"
        writeOptional(tally.header?.sdkType, to: &out)
        out += ",\"sdk_version\":"
        writeOptional(tally.header?.sdkVersion, to: &out)
        out += ",\"os_version\":"
        writeOptional(tally.header?.osVersion, to: &out)
        out += ",\"methods\":"
        writeCounts(tally.methods, to: &out)
        out += ",\"first\":"
        out += time(tally.first)
        out += ",\"last\":"
        out += time(tally.last)
        if let tap {
            out += ",\"tap_explained\":"
            out += String(tap.explained)
            out += ",\"tap\":"
            out += tapObject(tap)
        }
        out += "}"
    }

    /// {NAME: N} by name, written into `out`.
    static func writeCounts(_ tally: [String: Int], to out: inout String) {
        out += "{"
        for (index, (key, value)) in tally.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out += "," }
            JSONStringWriter.append(key, to: &out)
            out += ":"
            out += String(value)
        }
        out += "}"
    }

    static func writeOptional(_ text: String?, to out: inout String) {
        if let text { JSONStringWriter.append(text, to: &out) } else { out += "null" }
    }

    /// {"fetches","verdict","finding","flaws":{REASON: N},"windows":[{"start","seconds","edge","fetches","flawed"}]}
    static func tapObject(_ finding: TapJoin.Finding) -> String {
        let windows = finding.windows.map { window in
            object([
                ("start", time(window.start)), ("seconds", number(window.seconds)),
                ("edge", optional(window.edge?.rawValue)), ("fetches", String(window.fetches)),
                ("flawed", String(window.flawed)), ("failed", String(window.failed)),
            ])
        }
        return object([
            ("fetches", String(finding.fetches)), ("verdict", optional(finding.verdict?.rawValue)),
            ("finding", optional(finding.sentence)), ("flaws", counts(finding.flaws)),
            ("windows", "[" + windows.joined(separator: ",") + "]"),
        ])
    }

    /// The recording's fetches, the IDs they were for, and the IDs counted by verdict.
    static func tapTotals(_ findings: [LoggedID: TapJoin.Finding], fetches: Int) -> String {
        let totals = TapTotals(findings)
        return object(
            [("fetches", String(fetches)), ("ids", String(totals.fetchingIDs))]
                + totals.byVerdict.map { ($0.verdict.rawValue, String($0.ids)) }
                + [("only_in_tap", String(totals.onlyInTap))])
    }

    static func versionObject(_ row: VersionRow) -> String {
        object(
            [
                ("platform", optional(row.platform)), ("sdk_type", optional(row.sdkType)),
                ("sdk_version", optional(row.sdkVersion)), ("devices", String(row.devices)),
                ("calls", String(row.calls)),
                ("errors", String(row.errors)), ("silences", String(row.silences)),
                ("silent_devices", String(row.silentDevices)),
            ] + (row.tapExplained.map { [("tap_explained", String($0))] } ?? []))
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    static func counts(_ tally: [String: Int]) -> String {
        var out = ""
        writeCounts(tally, to: &out)
        return out
    }

    static func time(_ instant: LogInstant?) -> String { instant.map { "\"\($0)\"" } ?? "null" }

    static func optional(_ text: String?) -> String {
        var out = ""
        writeOptional(text, to: &out)
        return out
    }

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
