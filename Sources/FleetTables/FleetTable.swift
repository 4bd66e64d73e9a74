import Foundation

/// One member's row in the fleet table, at the instant the table was made.
public struct FleetMemberRow: Sendable, Equatable {
    /// The member's place in its group: what the dashboard follows.
    public var index: Int
    public var id: String
    public var status: MemberStatus
    public var expiresAt: Date?
    /// The last failure's text as its event carried it (redacted), even after a later success.
    public var lastError: String?
    public var requests: Int
    /// The status of Fleet Engine's answer to the member's last call (`OK`, `PERMISSION_DENIED`), nil before one.
    public var fleetEngine: String?

    /// Trouble a watcher of real devices found beyond what the events say, in one line
    /// (`tap`: "fetches 12× per token: the app's provider is not caching"); shown before the last error.
    public var churn: String?
    /// The tap's own columns for a real ID; nil in a simulated fleet.
    public var tapped: TappedColumns?

    /// Fleet Engine answered the last call with anything but OK.
    public var fleetEngineFailed: Bool { fleetEngine.map { $0 != "OK" } ?? false }

    /// What `n` / `N` stop at: a member whose token cache is in trouble, or whose SDK's calls fail.
    public var isTrouble: Bool { status.isTrouble || fleetEngineFailed || churn != nil }

    public init(
        index: Int, id: String, status: MemberStatus, expiresAt: Date?, lastError: String?, requests: Int,
        fleetEngine: String? = nil
    ) {
        self.index = index
        self.id = id
        self.status = status
        self.expiresAt = expiresAt
        self.lastError = lastError
        self.requests = requests
        self.fleetEngine = fleetEngine
    }
}

/// What the fleet table of one kind shows: the members matching `filter`, trouble first, at most
/// `FleetTable.rowLimit` of them, so the screen is sent hundreds of rows a second, not 20,000.
public struct FleetTable: Sendable, Equatable {
    public static let rowLimit = 500

    /// The ID substring the rows were chosen by (case-insensitive); empty for every member.
    public var filter: String
    /// Sorted trouble-first: failing, backing off, expired, no token, holding a token Fleet Engine
    /// did not accept, stale, then ok by soonest expiry.
    public var rows: [FleetMemberRow]
    /// How many members match the filter (the rows are the first `rowLimit` of them).
    public var matching: Int
    /// A tap's counts of the whole kind, whatever the filter; nil for simulated SDKs.
    public var tally: TapTally?

    public init(filter: String = "", rows: [FleetMemberRow] = [], matching: Int = 0) {
        self.filter = filter
        self.rows = rows
        self.matching = matching
    }

    /// Whether `id` contains `filter`, ignoring ASCII case (IDs are letters, digits, `._-`).
    public static func matches(_ id: String, _ filter: String) -> Bool { matches(id, needle: needle(filter)) }

    /// The filter as the bytes `matches(_:needle:)` looks for: made once for a pass over a fleet.
    package static func needle(_ filter: String) -> [UInt8] { filter.utf8.map(lower) }

    /// Byte by byte: the aggregate runs it over 20,000 IDs a second without making a string.
    package static func matches(_ id: String, needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        var id = id
        return id.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            outer: for start in 0...(bytes.count - needle.count) {
                for (i, byte) in needle.enumerated() where lower(bytes[start + i]) != byte { continue outer }
                return true
            }
            return false
        }
    }

    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }
}
