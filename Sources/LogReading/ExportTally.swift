/// Every ID of an export and the export's span: the fold of its counted entries. Memory grows
/// with the IDs, not the entries.
public struct ExportTally: Sendable {
    public private(set) var entries = 0
    public private(set) var from: LogInstant?
    public private(set) var to: LogInstant?
    public private(set) var ids: [LoggedID: IDTally] = [:]

    public init() {}

    /// One counted entry: a call of every ID its labels name.
    public mutating func add(_ entry: LogEntry) {
        entries += 1
        if from.map({ entry.time < $0 }) ?? true { from = entry.time }
        if to.map({ entry.time > $0 }) ?? true { to = entry.time }
        for id in entry.ids {
            ids[id, default: IDTally(id: id)].add(entry)
        }
    }

    /// The IDs by kind, then ID.
    /// The IDs are sorted, not the tallies: a sort moves what it sorts many times over, and a
    /// tally is a large value (its counts, cadence and headers), each move a dozen retains.
    public var sortedIDs: [IDTally] { ids.keys.sorted().compactMap { ids[$0] } }
}

/// Devices grouped by what they run: platform, SDK type, SDK version (their latest header).
/// Trips and tasks are not devices; a device seen only through server calls has no header and
/// groups under nulls.
public struct VersionRow: Sendable, Equatable {
    public var platform: String?
    public var sdkType: String?
    public var sdkVersion: String?
    public var devices = 0
    public var calls = 0
    public var errors = 0
    public var silences = 0
    /// Devices with at least one silence.
    public var silentDevices = 0
    /// With a tap recording: devices with a quiet stretch in which the tap saw them fetch.
    public var tapExplained: Int?

    struct Key: Hashable {
        var platform: String?
        var sdkType: String?
        var sdkVersion: String?
    }

    public static func table(_ tallies: [IDTally], explained: Set<LoggedID>? = nil) -> [VersionRow] {
        var rows: [Key: VersionRow] = [:]
        for tally in tallies where tally.id.kind.isDevice {
            let key = Key(
                platform: tally.header?.platform, sdkType: tally.header?.sdkType, sdkVersion: tally.header?.sdkVersion)
            var row = rows[key] ?? VersionRow(platform: key.platform, sdkType: key.sdkType, sdkVersion: key.sdkVersion)
            let silences = tally.silences.count
            row.devices += 1
            row.calls += tally.calls
            row.errors += tally.errors.values.reduce(0, +)
            row.silences += silences
            row.silentDevices += silences > 0 ? 1 : 0
            if let explained { row.tapExplained = (row.tapExplained ?? 0) + (explained.contains(tally.id) ? 1 : 0) }
            rows[key] = row
        }
        return rows.values.sorted {
            ($0.platform ?? "", $0.sdkType ?? "", $0.sdkVersion ?? "") < (
                $1.platform ?? "", $1.sdkType ?? "", $1.sdkVersion ?? ""
            )
        }
    }
}
