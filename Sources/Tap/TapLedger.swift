import Fleet
import FleetAuth
import Foundation

/// Every real ID's last hour, from the tap's readings: fetches, tokens, verdicts, and churn.
/// Fetches are counted per minute (sixty counters an ID) and tokens by fingerprint with the minute
/// last seen, so an ID costs the same whether its devices ask once an hour or ten times a second.
public struct TapLedger: Sendable {
    public static let window: TimeInterval = 3600
    /// IDs kept at most: the oldest seen go first, so a flood of made-up IDs cannot exhaust memory.
    public static let idLimit = 100_000
    /// Fingerprints kept an ID: more different tokens than this in an hour is churn either way.
    static let tokenLimit = 4096

    struct Key: Hashable {
        var kind: ProviderKind
        var id: String
    }

    /// Fetches kept an ID for the pane that follows it, the newest: an hour of a device asking
    /// every minute (the counters still count every fetch). About 100 bytes a fetch, so at the
    /// ID limit the fetches cost at most about 600 MB; a fleet that large asks far less often.
    public static let fetchLimit = 60

    struct Entry {
        /// The last hour's fetches, oldest first, at most `fetchLimit`.
        var fetches: [TappedHistory.Fetch] = []
        /// The last token an answer carried, for the followed pane's token and checks lines.
        var token: FetchedToken?
        /// Fetches per minute since the epoch, the last sixty minutes' (older are dropped on read).
        var minutes: [Int: Int] = [:]
        /// Fingerprint -> the minute it was last seen.
        var tokens: [String: Int] = [:]
        /// The first fetch of the current run of fetches: churn is judged over the time the ID was seen.
        var since: Date
        var verdict = TapVerdict.ok
        var lifetime: TimeInterval?
        var lastError: String?
        var lastStatus = 0
        var lastSeen: Date
    }

    public var churnLimit: Double
    private var entries: [Key: Entry] = [:]

    public init(churnLimit: Double = 4) { self.churnLimit = churnLimit }

    public var count: Int { entries.count }

    /// Counts `reading` and returns its ID's fetches per token lifetime now.
    @discardableResult
    public mutating func record(_ reading: TappedExchange) -> Double? {
        guard let kind = reading.kind, let id = reading.id else { return nil }
        let key = Key(kind: kind, id: id)
        let now = reading.time
        let minute = Self.minute(now)
        var entry = entries[key] ?? Entry(since: now, lastSeen: now)
        if now.timeIntervalSince(entry.lastSeen) > Self.window { entry = Entry(since: now, lastSeen: now) }
        entry.minutes[minute, default: 0] += 1
        if entry.minutes.count > 60 { entry.minutes = entry.minutes.filter { $0.key > minute - 60 } }
        if let fingerprint = reading.fingerprint {
            entry.tokens[fingerprint] = minute
            if entry.tokens.count > Self.tokenLimit { entry.tokens = entry.tokens.filter { $0.value > minute - 60 } }
        }
        entry.fetches.append(Self.fetch(reading))
        if entry.fetches.count > Self.fetchLimit { entry.fetches.removeFirst(entry.fetches.count - Self.fetchLimit) }
        entry.verdict = reading.verdict
        if let lifetime = reading.token?.lifetime { entry.lifetime = lifetime }
        if let token = reading.token { entry.token = token }
        if let error = reading.error, reading.verdict.isTrouble { entry.lastError = error }
        entry.lastStatus = reading.status
        entry.lastSeen = max(entry.lastSeen, now)
        if entries[key] == nil, entries.count >= Self.idLimit,
            let oldest = entries.min(by: { $0.value.lastSeen < $1.value.lastSeen })
        {
            entries[oldest.key] = nil
        }
        entries[key] = entry
        return fetchesPerToken(entry, now: now)
    }

    /// Every ID seen in the last hour, trouble first; `filter` keeps IDs containing it (any case).
    public func rows(now: Date, filter: String = "") -> [TapRow] {
        let needle = filter.lowercased()
        return entries.compactMap { key, entry -> TapRow? in
            guard now.timeIntervalSince(entry.lastSeen) <= Self.window else { return nil }
            guard needle.isEmpty || key.id.lowercased().contains(needle) else { return nil }
            return row(key, entry, now: now)
        }.sorted(by: TapRow.troubleFirst)
    }

    /// One ID's last hour, for the pane that follows it; nil when the ID was not seen in it.
    public func history(_ kind: ProviderKind, id: String, now: Date) -> TappedHistory? {
        let key = Key(kind: kind, id: id)
        guard let entry = entries[key], now.timeIntervalSince(entry.lastSeen) <= Self.window else { return nil }
        let row = row(key, entry, now: now)
        return TappedHistory(
            fetches: entry.fetches.filter { now.timeIntervalSince($0.time) <= Self.window }, fetchCount: row.fetches,
            tokens: row.tokens, fetchesPerToken: row.fetchesPerToken, churn: row.churning ? row.trouble : nil,
            token: entry.token)
    }

    /// A reading as the followed pane lists it. A replay's readings have no HTTP status (status
    /// 0): a token means 200, a backend's refusal carries its own; otherwise it is not known.
    static func fetch(_ reading: TappedExchange) -> TappedHistory.Fetch {
        var status: Int? = reading.status > 0 ? reading.status : nil
        if status == nil, reading.token != nil { status = 200 }
        if status == nil, let failure = reading.failure, case .httpStatus(let code, _, _) = failure { status = code }
        return TappedHistory.Fetch(
            time: reading.time, status: status, latency: reading.latency,
            fingerprint: reading.fingerprint, verdict: reading.verdict.rawValue, level: reading.verdict.level,
            expiresAt: reading.token?.expiresAt, error: reading.error)
    }

    /// The IDs over the churn limit, most fetches per token first.
    public func churning(now: Date) -> [TapRow] { rows(now: now).filter(\.churning) }

    private func row(_ key: Key, _ entry: Entry, now: Date) -> TapRow {
        let minute = Self.minute(now)
        let fetches = entry.minutes.reduce(0) { $0 + ($1.key > minute - 60 ? $1.value : 0) }
        let tokens = entry.tokens.values.count { $0 > minute - 60 }
        let ratio = fetchesPerToken(entry, now: now, fetches: fetches)
        return TapRow(
            kind: key.kind, id: key.id, fetches: fetches, tokens: tokens, verdict: entry.verdict,
            lifetime: entry.lifetime, lastError: entry.lastError, lastStatus: entry.lastStatus,
            lastSeen: entry.lastSeen, fetchesPerToken: ratio, churning: (ratio ?? 0) > churnLimit)
    }

    /// Fetches in the last hour over the tokens the ID needed while it was watched (an hour at
    /// most): one per lifetime. Nil until a token's lifetime is known.
    private func fetchesPerToken(_ entry: Entry, now: Date, fetches given: Int? = nil) -> Double? {
        guard let lifetime = entry.lifetime, lifetime > 0 else { return nil }
        let minute = Self.minute(now)
        let fetches = given ?? entry.minutes.reduce(0) { $0 + ($1.key > minute - 60 ? $1.value : 0) }
        let watched = min(Self.window, max(0, now.timeIntervalSince(entry.since)))
        return Double(fetches) / max(1, (watched / lifetime).rounded(.up))
    }

    private static func minute(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 60).rounded(.down)) }
}
