import FleetTables
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary

/// What the fleet rows of the dashboard show, computed at one instant.
public struct FleetSummary: Sendable, Equatable {
    public var providers: Int
    /// Requests per second over the last minute (over the time since the first event, if shorter).
    public var requestsPerSecond: Double
    /// Since the start.
    public var counters: ProviderCounters
    /// Requests, hits and errors of the last 60 s: the hit ratio, error rate and the errors
    /// column's colour read these, so one error does not colour the row for ever.
    public var window: ProviderCounters
    /// Fetch latency percentiles over the last 60 s.
    public var p50LatencyMs: Double?
    public var p99LatencyMs: Double?
    /// Members whose valid token is inside its refresh margin (the provider's refresh point passed).
    public var inRefreshMargin: Int
    /// Members by status; every member is counted, those without events as `noToken`.
    public var states: [MemberStatus: Int]
    /// Members that made their first call (any event of theirs came): below `providers` while a
    /// `--ramp` is starting them, or when the fleet runs on more machines than the events seen.
    public var started: Int
    /// Members whose last Fleet Engine call was answered with anything but OK.
    public var fleetEngineFailing: Int

    public init(
        providers: Int, requestsPerSecond: Double, counters: ProviderCounters,
        window: ProviderCounters = ProviderCounters(),
        p50LatencyMs: Double?, p99LatencyMs: Double?, inRefreshMargin: Int, states: [MemberStatus: Int] = [:],
        started: Int? = nil, fleetEngineFailing: Int = 0
    ) {
        self.providers = providers
        self.requestsPerSecond = requestsPerSecond
        self.counters = counters
        self.window = window
        self.p50LatencyMs = p50LatencyMs
        self.p99LatencyMs = p99LatencyMs
        self.inRefreshMargin = inRefreshMargin
        self.states = states
        self.started = started ?? providers
        self.fleetEngineFailing = fleetEngineFailing
    }

    /// Whether some SDKs have not made their first call yet: the rows say how many have.
    public var isStarting: Bool { started < providers }

    /// Errors per request over the last 60 s; nil without a request.
    public var errorRate: Double? { window.requests == 0 ? nil : Double(window.errors) / Double(window.requests) }
}

/// Aggregates the events of many providers of one kind in bounded memory: per-second buckets of
/// the last 60 s (requests, hits, errors, and up to `latencySamplesPerSecond` fetch latencies each),
/// and per member a `MemberRecord` (expiry, failures, requests) with its ID and last error's text
/// beside it, renamed in place when its ID changes: about 100 bytes a member, plus its error.
public struct FleetStatistics: Sendable {
    /// Seconds the windowed figures cover.
    public static let window = 60
    /// Latencies kept per second (a uniform sample of that second's fetches beyond it).
    public static let latencySamplesPerSecond = 512
    /// Members kept when the IDs are not given up front.
    public static let defaultCapacity = 20_000
    /// Failure texts are kept to this many characters: 20,000 members stay small.
    static let errorLimit = 300

    /// One second of the window.
    private struct Second {
        var second: Int
        var requests = 0, hits = 0, errors = 0
        var latencies: [Double] = []
        /// Fetches seen this second, for the reservoir sample.
        var fetched = 0
    }

    public private(set) var counters = ProviderCounters()
    private var seconds: [Second] = Array(repeating: Second(second: Int.min), count: FleetStatistics.window)
    private var newestSecond = Int.min
    private var firstSecond: Int?
    /// Each member's record, ID and last failure's text (redacted, as its event carried it), by index.
    private var members: [MemberRecord] = []
    private var memberIDs: [String] = []
    private var lastErrors: [String?] = []
    private var indexByID: [String: Int] = [:]
    /// Members whose `started` is set.
    private var startedCount = 0
    /// Members whose last Fleet Engine answer was not OK. Kept as the answers come, not counted
    /// in `standing`: that byte sits on each record's second cache line, and reading it there
    /// made a 100,000-member frame 0.4 ms slower (`tokendash-bench render`).
    private var fleetEngineFailingCount = 0
    /// With the IDs given, only they are members (a member's index is its SDK's); without, the
    /// first `capacity` IDs seen become members in the order they appear.
    private let adopts: Bool
    private let capacity: Int
    private let backoff: BackoffPolicy
    /// A fixed-seed generator for the latency sample: the same events give the same figures.
    private var sampleState: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// `ids` are the members in their SDKs' order; `backoff` is the providers' policy, replayed
    /// to tell a member backing off from one failing.
    public init(
        ids: [String] = [], capacity: Int = FleetStatistics.defaultCapacity, backoff: BackoffPolicy = BackoffPolicy()
    ) {
        adopts = ids.isEmpty
        self.capacity = adopts ? capacity : ids.count
        self.backoff = backoff
        members = Array(repeating: MemberRecord(), count: ids.count)
        memberIDs = ids
        lastErrors = Array(repeating: nil, count: ids.count)
        indexByID = Dictionary(
            ids.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    public var memberCount: Int { members.count }

    /// Member `index`'s ID, if there is such a member.
    public func id(of index: Int) -> String? { memberIDs.indices.contains(index) ? memberIDs[index] : nil }

    /// The index of the member whose ID is `id`, if any.
    public func index(of id: String) -> Int? { indexByID[id] }

    public mutating func record(_ event: ProviderEvent) {
        let before = counters
        counters.record(event)
        let second = Self.second(event.time)
        if let slot = slot(for: second) {
            seconds[slot].requests = seconds[slot].requests.saturatingAdd(counters.requests - before.requests)
            seconds[slot].hits = seconds[slot].hits.saturatingAdd(counters.hits - before.hits)
            seconds[slot].errors = seconds[slot].errors.saturatingAdd(counters.errors - before.errors)
            if case .fetched(_, let latency) = event.kind { sample(latency * 1000, slot) }
        }
        if case .idChanged(let from, let to) = event.kind {
            // A new ID in the same SDK: a new member, in the same place.
            if let from, let index = indexByID.removeValue(forKey: from) {
                if FleetEngineStatus.failed(members[index].fleetEngine) { fleetEngineFailingCount -= 1 }
                let started = members[index].started
                members[index] = MemberRecord()
                members[index].started = started
                memberIDs[index] = to
                lastErrors[index] = nil
                indexByID[to] = index
            }
            return
        }
        guard let index = indexByID[event.id] ?? adopt(event) else { return }
        if !members[index].started { startedCount += 1 }
        if case .fleetEngineCall = event.kind {
            let before = FleetEngineStatus.failed(members[index].fleetEngine)
            members[index].record(event)
            fleetEngineFailingCount += (FleetEngineStatus.failed(members[index].fleetEngine) ? 1 : 0) - (before ? 1 : 0)
            return
        }
        members[index].record(event)
        if case .fetchFailed(let error, _) = event.kind {
            if case .superseded = error { return }
            let text = error.description
            lastErrors[index] = text.count > Self.errorLimit ? String(text.prefix(Self.errorLimit - 1)) + "…" : text
        }
    }

    public func summary(now: Date, providers: Int? = nil) -> FleetSummary {
        let nowSecond = Self.second(now)
        var window = ProviderCounters()
        var latencies: [Double] = []
        for s in seconds where s.second > nowSecond - Self.window && s.second <= nowSecond {
            window.requests = window.requests.saturatingAdd(s.requests)
            window.hits = window.hits.saturatingAdd(s.hits)
            window.errors = window.errors.saturatingAdd(s.errors)
            latencies += s.latencies
        }
        latencies.sort()
        let providers = providers ?? members.count
        let standing = standing(now: now, providers: providers)
        let span = firstSecond.map { min(Self.window, max(1, nowSecond - $0 + 1)) } ?? Self.window
        return FleetSummary(
            providers: providers,
            requestsPerSecond: Double(window.requests) / Double(span),
            counters: counters,
            window: window,
            p50LatencyMs: Percentile.nearestRank(0.50, of: latencies),
            p99LatencyMs: Percentile.nearestRank(0.99, of: latencies),
            inRefreshMargin: standing.inRefreshMargin,
            states: standing.states,
            started: min(startedCount, providers),
            fleetEngineFailing: standing.fleetEngineFailing)
    }

    /// Where the members stand at `now`, without the windowed figures: what `summary` and a
    /// Prometheus scrape share. `providers` beyond the members known count as holding no token.
    /// The soonest expiry only `withSoonestExpiry`: the screen's summary, made every second,
    /// has no use for it, and finding it was an eighth of a 20,000-member fleet frame.
    public func standing(now: Date, providers: Int? = nil, withSoonestExpiry: Bool = false) -> FleetStanding {
        var counts = [Int](repeating: 0, count: MemberStatus.allCases.count)
        var inMargin = 0
        var soonest: Date?
        for member in members {
            let status = member.status(at: now, backoff: backoff)
            counts[status.rawValue] += 1
            if member.inRefreshMargin(at: now) { inMargin += 1 }
            if withSoonestExpiry, status >= .stale, let expiry = member.expiresAt, soonest.map({ expiry < $0 }) ?? true
            {
                soonest = expiry
            }
        }
        var states: [MemberStatus: Int] = [:]
        for status in MemberStatus.allCases where counts[status.rawValue] > 0 {
            states[status] = counts[status.rawValue]
        }
        // Members no event has named yet hold no token.
        let providers = providers ?? members.count
        if providers > members.count { states[.noToken, default: 0] += providers - members.count }
        return FleetStanding(
            states: states, inRefreshMargin: inMargin, soonestExpiry: soonest,
            fleetEngineFailing: fleetEngineFailingCount)
    }

    /// The members whose ID contains `filter` (ignoring case), trouble first (failing, backing
    /// off, expired, no token, by index within each; then those holding a token Fleet Engine did
    /// not accept, stale and ok, each by soonest expiry), at most `limit` rows.
    public func table(now: Date, filter: String = "", limit: Int = FleetTable.rowLimit) -> FleetTable {
        let needle = FleetTable.needle(filter)
        var keys: [(rank: Int, expiry: Double, index: Int, status: MemberStatus)] = []
        keys.reserveCapacity(members.count)
        for (index, member) in members.enumerated()
        where needle.isEmpty || FleetTable.matches(memberIDs[index], needle: needle) {
            let status = member.status(at: now, backoff: backoff)
            // Those holding a token (stale, ok) by soonest expiry; the troubles by index, so they stay put.
            let holds = status >= .stale
            let expiry = holds ? member.expiresAt?.timeIntervalSince1970 ?? .infinity : 0
            // A token Fleet Engine answered with anything but OK is trouble the cache cannot see:
            // the SDK's calls fail. Such holders come before the stale ones.
            let rank =
                holds && FleetEngineStatus.failed(member.fleetEngine)
                ? 2 * MemberStatus.stale.rawValue - 1 : 2 * status.rawValue
            keys.append((rank, expiry, index, status))
        }
        keys.sort { ($0.rank, $0.expiry, $0.index) < ($1.rank, $1.expiry, $1.index) }
        let rows = keys.prefix(limit).map { key in
            let member = members[key.index]
            return FleetMemberRow(
                index: key.index, id: memberIDs[key.index], status: key.status, expiresAt: member.expiresAt,
                lastError: lastErrors[key.index], requests: member.requests,
                fleetEngine: FleetEngineStatus.name(member.fleetEngine))
        }
        return FleetTable(filter: filter, rows: rows, matching: keys.count)
    }

    /// Held within ±2^53 s (no clock or recording checked by `InputBounds` comes near), so the
    /// window's sums and differences of seconds never overflow, whatever time an event carries.
    private static func second(_ date: Date) -> Int {
        min(1 << 53, max(-(1 << 53), Int.clamping(date.timeIntervalSince1970)))
    }

    /// The bucket of `second`, emptied first when it last held an older second; nil for a second
    /// already out of the window (a late event).
    private mutating func slot(for second: Int) -> Int? {
        if firstSecond == nil { firstSecond = second }
        if second > newestSecond { newestSecond = second }
        guard second > newestSecond - Self.window else { return nil }
        let slot = ((second % Self.window) + Self.window) % Self.window
        if seconds[slot].second != second { seconds[slot] = Second(second: second) }
        return slot
    }

    /// Reservoir sampling within the second: every fetch of it equally likely to be kept.
    private mutating func sample(_ ms: Double, _ slot: Int) {
        seconds[slot].fetched += 1
        if seconds[slot].latencies.count < Self.latencySamplesPerSecond {
            seconds[slot].latencies.append(ms)
            return
        }
        sampleState ^= sampleState << 13
        sampleState ^= sampleState >> 7
        sampleState ^= sampleState << 17
        let pick = Int(sampleState % UInt64(seconds[slot].fetched))
        if pick < Self.latencySamplesPerSecond { seconds[slot].latencies[pick] = ms }
    }

    /// Without IDs given: an ID a provider is using becomes a member while there is room.
    private mutating func adopt(_ event: ProviderEvent) -> Int? {
        guard adopts, members.count < capacity else { return nil }
        switch event.kind {
        case .fetchStarted, .fetched, .cacheHit: break
        default: return nil
        }
        members.append(MemberRecord())
        memberIDs.append(event.id)
        lastErrors.append(nil)
        indexByID[event.id] = members.count - 1
        return members.count - 1
    }
}
