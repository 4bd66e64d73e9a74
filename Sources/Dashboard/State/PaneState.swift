import Fleet
import FleetEngineAPI
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import Redaction
import UICore

/// One trip or vehicle ID switch, as the history list shows it.
public struct IDChange: Equatable, Sendable {
    public var time: Date
    public var from: String?
    public var to: String
}

/// One line of a pane's fetch log.
public struct LogEntry: Equatable, Sendable {
    public enum Level: Sendable { case hit, info, warning, error }
    /// What a line records; its label is the log's first column.
    public enum Event: Sendable, Equatable {
        case cacheHit, request, gotToken, warning, discarded, failed, idChanged, dropped, expired, forced
        /// The token a newly followed fleet member holds.
        case cachedToken
        /// The SDK's call to Fleet Engine with its token, and the answer.
        case fleetEngine
        /// The customer's provider class broke the SDK's contract.
        case breach
        /// A line the customer's class printed.
        case printed
        /// A request of the customer's class, as tokendash's proxy saw it.
        case backend
        /// A real device's fetch through the tap, from its ledger.
        case fetch

        public var label: String {
            switch self {
            case .cacheHit: "cache hit"
            case .request: "request"
            case .gotToken: "got token"
            case .warning: "warning"
            case .discarded: "discarded"
            case .failed: "failed"
            case .idChanged: "ID"
            case .dropped: "dropped"
            case .expired: "expired"
            case .forced: "forced"
            case .cachedToken: "cached token"
            case .fleetEngine: "Fleet Engine"
            case .breach: "your code"
            case .printed: "printed"
            case .backend: "backend"
            case .fetch: "fetch"
            }
        }
    }
    public var time: Date
    public var event: Event
    public var detail: String
    public var latency: TimeInterval?
    public var level: Level
    /// A time the detail refers to (an expiry), formatted at render time in the display's zone.
    public var at: Date?
    /// Repeated cache hits fold into one line with a count.
    public var count = 1
    /// The token a fetch brought, by fingerprint, so log lines match `watch` and `decode`.
    public var fingerprint: String?
}

/// Everything one pane shows about its provider.
public struct PaneState: Equatable, Sendable {
    public static let historyLimit = 500
    public static let sparklineMinutes = 60

    public let kind: ProviderKind
    public var id: String
    public var token: FetchedToken? {
        // Serialised once per token, not once per frame.
        didSet {
            authorizationText = token.map { $0.jwt.claims["authorization"]?.description ?? "missing" }
            redactedToken = token.map { TokenRedactor.redact($0.token) }
        }
    }
    /// The token's authorization claim as JSON text, for the claims lines.
    public private(set) var authorizationText: String?
    /// The token as the pane shows it unrevealed, made once per token, not once per frame.
    public private(set) var redactedToken: String?
    public var lastError: String?
    /// Fleet Engine's answer to the SDK's last call with its token.
    public var fleetEngine: FleetEngineAnswer?
    public var fetching = false
    /// After a failure: when the provider asks again, and how many failures in a row.
    public var retryAt: Date?
    public var attempt = 0
    /// When the SDK last asked for a token (a hit or a fetch): with the update interval, when it asks next.
    public var lastCall: Date?
    public var history: [IDChange] = []
    /// The fetch log, newest first, at most `historyLimit` entries.
    public var log: [LogEntry] {
        get { hitRun.map { [$0] + olderLog } ?? olderLog }
        set {
            if let first = newValue.first, first.level == .hit {
                hitRun = first
                olderLog = Array(newValue.dropFirst().prefix(Self.historyLimit - 1))
            } else {
                hitRun = nil
                olderLog = Array(newValue.prefix(Self.historyLimit))
            }
        }
    }
    /// The log's newest entry when it is a run of cache hits, kept apart from the rest: the SDK's
    /// every call changes it, and were it the first element of one array, each change would copy
    /// all 500 entries that a frame still waiting to be drawn shares (a quarter of a cast's walk).
    private var hitRun: LogEntry?
    /// The log's other entries, newest first.
    private var olderLog: [LogEntry] = []
    public var counters = ProviderCounters()
    public var timeline = Timeline()
    /// Fetches started per minute (epoch minute -> count), for the sparkline.
    public var fetchesPerMinute: [Int: Int] = [:]
    /// In a fleet: which member this pane follows, and how many there are.
    public var memberIndex = 0
    public var memberCount = 1
    /// Members seen so far, when they are learnt from the events (`tap`'s real devices, which
    /// arrive one by one): what the screen counts instead of `memberCount`, the table's capacity.
    /// nil for a fleet of a known size. Updated from each second's fleet summary.
    public var seenMembers: Int?

    /// The fleet's size as the screen says it: the IDs seen when learnt, else the configured size.
    public var fleetSize: Int { seenMembers ?? memberCount }

    /// A tap's followed ID: its last hour as the ledger had it when Enter followed it, its fetches
    /// since kept and counted on.
    public var tapped: TappedHistory?

    /// Whether the pane has an ID: a tap's panes have none until Enter follows one.
    public var following: Bool { !id.isEmpty }
    /// Where the customer's provider class broke the SDK's contract, one per kind and lines,
    /// the latest last: each is one line of the pane.
    public var breaches: [ContractBreach] = []
    public static let breachLimit = 6

    public init(kind: ProviderKind, id: String) {
        self.kind = kind
        self.id = id
    }

    public var title: String { kind.spec.paneTitle }

    /// Whether `event` is about the provider this pane follows.
    func concerns(_ event: ProviderEvent) -> Bool {
        guard event.provider == kind else { return false }
        if memberCount == 1 || event.id == id { return true }
        if case .idChanged(_, let to) = event.kind { return to == id }
        return false
    }

    mutating func apply(_ event: ProviderEvent) {
        counters.record(event)
        let time = event.time
        switch event.kind {
        case .cacheHit(let count, _):
            lastCall = time
            recordHits(count, at: time)
        case .fetchStarted(let reason):
            lastCall = time
            recordFetchStarted(reason, at: time)
        case .fetched(let fetched, let latency): recordFetched(fetched, latency: latency, at: time)
        case .fetchFailed(let error, let latency): recordFailure(error, latency: latency, at: time)
        case .idChanged(let from, let to): recordIDChange(from: from, to: to, at: time)
        case .cacheDropped(let reason):
            token = nil
            append(LogEntry(time: time, event: .dropped, detail: reason, latency: nil, level: .warning))
        case .expired(let at):
            token = nil
            append(LogEntry(time: time, event: .expired, detail: "at", latency: nil, level: .warning, at: at))
        case .backingOff(let until, let attempt):
            retryAt = until
            self.attempt = attempt
        case .forcedRefresh:
            append(LogEntry(time: time, event: .forced, detail: "refresh requested", latency: nil, level: .info))
        case .fleetEngineCall(let answer): recordFleetEngine(answer, at: time)
        case .breach(let breach): recordBreach(breach, at: time)
        case .printed(let text):
            append(
                LogEntry(time: time, event: .printed, detail: SecretRedactor.redact(text), latency: nil, level: .info))
        case .backendRequest(let exchange):
            append(
                LogEntry(
                    time: time, event: .backend, detail: SecretRedactor.redact(exchange.summary),
                    latency: exchange.latency,
                    level: exchange.failed ? .warning : .info))
        }
    }

    /// One event stands for `count` hits (providers publish them in batches); consecutive hits share a line.
    private mutating func recordHits(_ count: Int, at time: Date) {
        if var run = hitRun {
            run.count = run.count.saturatingAdd(count)
            run.time = time
            hitRun = run
        } else {
            append(LogEntry(time: time, event: .cacheHit, detail: "", latency: nil, level: .hit, count: count))
        }
    }

    private mutating func recordFetchStarted(_ reason: FetchReason, at time: Date) {
        fetching = true
        let minute = Int.clamping(time.timeIntervalSince1970 / 60)
        fetchesPerMinute[minute, default: 0] += 1
        fetchesPerMinute = fetchesPerMinute.filter { $0.key > minute - Self.sparklineMinutes }
        append(LogEntry(time: time, event: .request, detail: reason.rawValue, latency: nil, level: .info))
    }

    private mutating func recordFetched(_ fetched: FetchedToken, latency: TimeInterval, at time: Date) {
        fetching = false
        retryAt = nil
        attempt = 0
        // A warning every token carries (a demo's short lifetime) is logged once, not at every refresh.
        let known = Set(token?.warnings ?? [])
        token = fetched
        lastError = nil
        timeline.record(Timeline.Outcome(time: time, ok: true, latency: latency))
        timeline.record(
            Timeline.Span(
                from: fetched.jwt.issuedAt ?? fetched.receivedAt, to: fetched.expiresAt,
                refreshAt: fetched.refreshAt, fingerprint: fetched.fingerprint), at: time)
        append(
            LogEntry(
                time: time, event: .gotToken, detail: "expires", latency: latency, level: .info,
                at: fetched.expiresAt, fingerprint: fetched.fingerprint))
        for warning in fetched.warnings where !known.contains(warning) {
            append(LogEntry(time: time, event: .warning, detail: warning, latency: nil, level: .warning))
        }
    }

    private mutating func recordFailure(_ error: FleetAuthError, latency: TimeInterval, at time: Date) {
        if case .superseded = error {
            append(
                LogEntry(time: time, event: .discarded, detail: error.description, latency: latency, level: .warning))
            return
        }
        fetching = false
        lastError = error.description
        timeline.record(Timeline.Outcome(time: time, ok: false, latency: latency))
        append(LogEntry(time: time, event: .failed, detail: error.description, latency: latency, level: .error))
    }

    private mutating func recordIDChange(from: String?, to: String, at time: Date) {
        id = to
        retryAt = nil
        attempt = 0
        timeline.recordIDChange(at: time)
        history.insert(IDChange(time: time, from: from, to: to), at: 0)
        if history.count > Self.historyLimit { history.removeLast(history.count - Self.historyLimit) }
        // Cut in the middle, so the new ID's end shows in a log line of any width.
        let detail = "\(Format.elideMiddle(from ?? "none", 24)) → \(Format.elideMiddle(to, 24))"
        append(LogEntry(time: time, event: .idChanged, detail: detail, latency: nil, level: .info))
    }

    private mutating func recordFleetEngine(_ answer: FleetEngineAnswer, at time: Date) {
        fleetEngine = answer
        timeline.record(Timeline.Call(time: time, ok: answer.succeeded))
        let level: LogEntry.Level =
            answer.verdictDisagrees || answer.tokenVerdict == .refused
            ? .error
            : answer.succeeded ? .info : .warning
        append(
            LogEntry(
                time: time, event: .fleetEngine, detail: answer.summary, latency: answer.latency, level: level,
                fingerprint: answer.fingerprint))
    }

    /// A race is shown once per pair of lines, a late completion once per kind: the log keeps each time.
    private mutating func recordBreach(_ breach: ContractBreach, at time: Date) {
        breaches.removeAll { $0.kind == breach.kind && $0.lines == breach.lines }
        breaches.append(breach)
        if breaches.count > Self.breachLimit { breaches.removeFirst(breaches.count - Self.breachLimit) }
        append(LogEntry(time: time, event: .breach, detail: breach.sentence, latency: nil, level: .error))
    }

    private mutating func append(_ entry: LogEntry) {
        var entry = entry
        // A followed real ID's fetches read as the ledger's did, and count with them.
        if tapped != nil {
            guard let fetch = tappedFetch(entry) else { return }
            entry = fetch
        }
        // The run of hits before it is over: it joins the older entries.
        if let run = hitRun {
            olderLog.insert(run, at: 0)
            hitRun = nil
        }
        if entry.level == .hit {
            hitRun = entry
        } else {
            olderLog.insert(entry, at: 0)
        }
        let room = Self.historyLimit - (hitRun == nil ? 0 : 1)
        if olderLog.count > room { olderLog.removeLast(olderLog.count - room) }
    }

    /// The log's run of hits on top, if it has one, and its other entries: the renderer tells
    /// from the array's identity that the other entries are as it drew them.
    var logParts: (run: LogEntry?, older: [LogEntry]) { (hitRun, olderLog) }

    /// Whether the log has no entries, without building it.
    public var logIsEmpty: Bool { hitRun == nil && olderLog.isEmpty }

    /// The log's newest `count` entries, newest first, without building the whole log.
    public func newestLog(_ count: Int) -> [LogEntry] {
        guard count > 0 else { return [] }
        guard let hitRun else { return Array(olderLog.prefix(count)) }
        return [hitRun] + olderLog.prefix(count - 1)
    }
}
