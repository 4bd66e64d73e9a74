import FleetTables
import Foundation
import ProviderVocabulary

/// Every real ID's last hour, from the tap's readings: fetches, tokens, verdicts, and churn,
/// counted by `TappedCounts` (sixty counters an ID, tokens by fingerprint), so an ID costs the
/// same whether its devices ask once an hour or ten times a second.
public struct TapLedger: Sendable {
    public static let window = TappedCounts.window
    /// IDs kept at most: the oldest seen go first, so a flood of made-up IDs cannot exhaust memory.
    public static let idLimit = 100_000

    struct Key: Hashable {
        var kind: ProviderKind
        var id: String
    }

    /// Fetches kept an ID for the pane that follows it, the newest: an hour of a device asking
    /// every minute (the counters still count every fetch). About 100 bytes a fetch, so at the
    /// ID limit the fetches cost at most about 600 MB; a fleet that large asks far less often.
    public static let fetchLimit = TappedHistory.fetchLimit

    /// An ID's entry lies in the ID table itself, so its size is what the table moves each time
    /// it grows: with the token held in place an entry took about 300 bytes, and every new ID
    /// in a flood of them (the bench's load) paid for moving and faulting in a share of them.
    struct Entry {
        /// The last hour's fetches, oldest first, at most `fetchLimit`.
        var fetches: [TappedHistory.Fetch] = []
        /// The last token an answer carried, for the followed pane's token and checks lines.
        var token: KeptToken?
        var counts: TappedCounts
        var verdict = TapVerdict.ok
        var lastError: String?
        var lastStatus = 0
    }

    /// A token held by reference: it is only ever replaced whole, never changed in place.
    final class KeptToken: Sendable {
        let token: FetchedToken
        init(_ token: FetchedToken) { self.token = token }
    }

    public var churnLimit: Double
    private var entries: [Key: Entry] = [:]
    /// `idLimit` but in tests.
    private let limit: Int

    /// Whether a token is held without its decoded parts (`FetchedToken.cacheable`), decoded
    /// again for the followed pane (`hydrated`): at 100,000 IDs those parts were half of each ID's
    /// bytes, and one new ID per request grew the reader's heap by a page a request. Only for the
    /// tap reader's own readings, whose tokens decode from their text; a recording's text is
    /// redacted, so a ledger fed its events keeps the parts.
    private let slimTokens: Bool

    public init(churnLimit: Double = 4, idLimit: Int = TapLedger.idLimit, slimTokens: Bool = false) {
        self.churnLimit = churnLimit
        limit = max(10, idLimit)
        self.slimTokens = slimTokens
    }

    public var count: Int { entries.count }

    /// Counts `reading` and returns its ID's fetches per token lifetime now.
    @discardableResult
    public mutating func record(_ reading: TappedExchange) -> Double? {
        guard let kind = reading.kind, let id = reading.id else { return nil }
        let key = Key(kind: kind, id: id)
        let now = reading.time
        // One lookup for a known ID: the table is searched twice only when it is full.
        if entries.count >= limit, entries.index(forKey: key) == nil { evictOldest() }
        // Changed where it lies: a copy taken out and put back copied its fetches and counts at
        // every fetch of a churning ID.
        return Self.update(
            &entries[key, default: Entry(counts: TappedCounts(since: now))], with: reading, now: now, slim: slimTokens)
    }

    private static func update(_ entry: inout Entry, with reading: TappedExchange, now: Date, slim: Bool) -> Double? {
        // A run of fetches after an hour's quiet starts anew, its old fetches with its old counts.
        if now.timeIntervalSince(entry.counts.lastSeen) > Self.window {
            entry = Entry(counts: TappedCounts(since: now))
        }
        entry.counts.record(at: now, fingerprint: reading.fingerprint, lifetime: reading.token?.lifetime)
        entry.fetches.append(Self.fetch(reading))
        if entry.fetches.count > Self.fetchLimit { entry.fetches.removeFirst(entry.fetches.count - Self.fetchLimit) }
        entry.verdict = reading.verdict
        // Copied once, into its box: an `if let` took a copy of its own first.
        if let kept = reading.token.map({ KeptToken(slim ? $0.cacheable : $0) }) { entry.token = kept }
        if let error = reading.error, reading.verdict.isTrouble { entry.lastError = error }
        entry.lastStatus = reading.status
        return entry.counts.fetchesPerToken(now: now)
    }

    /// Makes room for new IDs: the tenth seen longest ago goes at once (with any seen at the same
    /// moment as the last of them). One sort per tenth of the limit, where finding the single
    /// oldest for each new ID scanned all 100,000: in a flood of new IDs the reader spent its
    /// core on that scan and fell behind.
    private mutating func evictOldest() {
        let seen = entries.values.map(\.counts.lastSeen).sorted()
        guard !seen.isEmpty else { return }
        let cutoff = seen[min(seen.count - 1, max(0, seen.count / 10 - 1))]
        entries = entries.filter { $0.value.counts.lastSeen > cutoff }
    }

    /// Every ID seen in the last hour, trouble first; `filter` keeps IDs containing it (any case).
    public func rows(now: Date, filter: String = "") -> [TapRow] {
        let needle = filter.lowercased()
        return entries.compactMap { key, entry -> TapRow? in
            guard now.timeIntervalSince(entry.counts.lastSeen) <= Self.window else { return nil }
            guard needle.isEmpty || key.id.lowercased().contains(needle) else { return nil }
            return row(key, entry, now: now)
        }.sorted(by: TapRow.troubleFirst)
    }

    /// One ID's last hour, for the pane that follows it; nil when the ID was not seen in it.
    public func history(_ kind: ProviderKind, id: String, now: Date) -> TappedHistory? {
        let key = Key(kind: kind, id: id)
        guard let entry = entries[key], now.timeIntervalSince(entry.counts.lastSeen) <= Self.window else { return nil }
        var history = TappedHistory(
            fetches: entry.fetches, counts: entry.counts, churnLimit: churnLimit, token: entry.token?.token.hydrated)
        history.fetches = history.fetches(now: now)
        return history
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
        let ratio = entry.counts.fetchesPerToken(now: now)
        return TapRow(
            kind: key.kind, id: key.id, fetches: entry.counts.fetches(now: now), tokens: entry.counts.tokens(now: now),
            verdict: entry.verdict, lifetime: entry.counts.lifetime, lastError: entry.lastError,
            lastStatus: entry.lastStatus, lastSeen: entry.counts.lastSeen, fetchesPerToken: ratio,
            churning: (ratio ?? 0) > churnLimit)
    }
}
