import Dashboard
import Fleet
import FleetEngineAPI
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import Recording
import RecordingFormat
import Redaction
import TokenJudging
import UICore

/// What a report shows of a recording, gathered in one pass through it as the replay plays it
/// (`ReplayTimeline.walk`): each kind's tally, the fetch log, the distinct tokens, Fleet Engine's
/// answers, the timeline's lanes, and each mark with the frame the dashboard showed then.
/// Long sessions and large fleets are cut at `rowLimit` rows a table, and the page says by how much.
struct SessionDigest: Sendable {
    struct LogRow: Sendable, Equatable {
        var time: Date
        var provider: ProviderKind
        var id: String
        var event: String
        var detail: String
        var failed: Bool
    }

    struct TokenRow: Sendable, Equatable {
        var provider: ProviderKind
        var token: FetchedToken
        /// The rules as `decode` prints them, judged when the token came.
        var rules: [RuleResult]
    }

    struct AnswerRow: Sendable, Equatable {
        var time: Date
        var provider: ProviderKind
        var id: String
        var answer: FleetEngineAnswer
    }

    struct MarkMoment: Sendable, Equatable {
        var mark: Mark
        var frame: Canvas
        var theme: Theme
    }

    /// A point or span on one lane of the timeline.
    struct LaneItem: Sendable, Equatable {
        var provider: ProviderKind
        var from: Date
        var to: Date
        var ok: Bool
        var label: String
    }

    var header: RecordingHeader
    var start: Date
    var end: Date
    var kinds: [ProviderKind]
    var tallies: [ProviderKind: ProviderTally] = [:]
    var log: [LogRow] = []
    var tokens: [TokenRow] = []
    var answers: [AnswerRow] = []
    var marks: [MarkMoment] = []
    /// The cast's chapters: the same labels, with their times.
    var moments: [(time: Date, label: String)] = []
    var spans: [LaneItem] = []
    var requests: [LaneItem] = []
    var calls: [LaneItem] = []
    /// Rows each table left out past `rowLimit`, by table.
    var cut: [String: Int] = [:]
    /// A token was revealed on the recorded screen (it is shown redacted here all the same).
    var revealed = false
    /// What could not be read, as the replay says it (`FILE:LINE: …`).
    var problems: [String]
    /// A tapped session's fleet tables as the dashboard showed them at the end, each kind's rows
    /// that carry the tap's columns (fetches, distinct tokens, verdict, lifetime, churn).
    var tapped: [(kind: ProviderKind, table: FleetTable)] = []

    static let rowLimit = 2000
    static let tokenLimit = 200

    /// `tableMarks` makes what a watcher added to the live fleet tables (`tap`'s columns and churn,
    /// `TapTableMarks.maker`), so the frames and the tapped table show what the dashboard showed.
    init(
        _ recording: Recording, theme: Theme, tableMarks: (@Sendable () -> any FleetTableMarks)? = nil
    ) {
        header = recording.header
        start = recording.start
        end = recording.end
        problems = recording.problems
        let initial = recording.header.initialState(theme: theme, themeNames: [theme.name])
        kinds = initial.only.map { role in initial.kinds.filter { $0.role == role } } ?? initial.kinds
        for kind in kinds { tallies[kind] = ProviderTally(kind: kind) }
        var size = FrameSize(recording, fallback: RecordingCast.defaultSize)
        var markers = CastMarkers()
        var seen: Set<String> = []
        var last = initial
        ReplayTimeline(recording, initial: initial, marks: tableMarks).walk { time, state, actions in
            last = state
            var marked: [Mark] = []
            for timed in actions {
                _ = size.follow(timed.action)
                for label in markers.labels(for: timed.action) { moments.append((time, label)) }
                switch timed.action {
                case .event(let event): record(event, seen: &seen)
                case .marked(let mark): marked.append(mark)
                default: break
                }
            }
            if state.reveal { revealed = true }
            let frameTheme = state.colorless ? state.theme.monochrome : state.theme
            for mark in marked {
                marks.append(
                    MarkMoment(
                        mark: mark, frame: Renderer.render(state, width: size.width, height: size.height),
                        theme: frameTheme))
            }
        }
        for kind in kinds {
            guard var table = last.session.fleetTables[kind] else { continue }
            table.rows = table.rows.filter { $0.tapped != nil }
            if !table.rows.isEmpty { tapped.append((kind, table)) }
        }
    }

    private mutating func record(_ event: ProviderEvent, seen: inout Set<String>) {
        tallies[event.provider, default: ProviderTally(kind: event.provider)].record(event)
        let t = event.time
        /// One row of the fetch log for this event.
        func log(_ name: String, _ detail: String, failed: Bool = false) {
            addLog(LogRow(time: t, provider: event.provider, id: event.id, event: name, detail: detail, failed: failed))
        }
        switch event.kind {
        case .cacheHit(let count, _): recordHits(count, of: event)
        case .fetchStarted(let reason): log("request", reason.rawValue)
        case .fetched(let token, let latency): recordFetched(token, latency: latency, of: event, seen: &seen)
        case .fetchFailed(let error, let latency):
            if case .superseded = error { return }
            log("failed", "\(error.description) (\(Self.milliseconds(latency)))", failed: true)
            add(
                \.requests,
                LaneItem(provider: event.provider, from: t, to: t, ok: false, label: "failed: \(error.description)"),
                table: "requests")
        case .idChanged(let from, let to): log("ID", "\(from ?? "none") → \(to)")
        case .cacheDropped(let reason): log("dropped", reason)
        case .expired(let at): log("expired", "at \(Self.clock(at))", failed: true)
        case .forcedRefresh: log("forced", "refresh forced")
        case .backingOff(let until, let attempt):
            log("backing off", "failure \(attempt) in a row; next try at \(Self.clock(until))", failed: true)
        case .fleetEngineCall(let answer): recordFleetEngine(answer, of: event)
        // The customer's class broke the SDK's contract: the same words as the pane's.
        case .breach(let breach): log("your code", breach.sentence, failed: true)
        case .printed(let text): log("printed", SecretRedactor.redact(text))
        case .backendRequest(let exchange):
            log("backend", SecretRedactor.redact(exchange.summary), failed: exchange.failed)
        }
    }

    /// Hits are folded into one row while nothing else happens, as the pane's log folds them.
    private mutating func recordHits(_ count: Int, of event: ProviderEvent) {
        if let last = log.last, last.event == "cache hit", last.provider == event.provider, last.id == event.id {
            let before = Int(last.detail.split(separator: " ").first ?? "") ?? 0
            log[log.count - 1].detail = "\(before.saturatingAdd(count)) calls served from the cache"
            log[log.count - 1].time = event.time
        } else {
            addLog(
                LogRow(
                    time: event.time, provider: event.provider, id: event.id, event: "cache hit",
                    detail: "\(count) calls served from the cache", failed: false))
        }
    }

    /// A token got: its log row, its request and its span on the timeline, and its row once per fingerprint.
    private mutating func recordFetched(
        _ token: FetchedToken, latency: TimeInterval, of event: ProviderEvent, seen: inout Set<String>
    ) {
        let t = event.time
        addLog(
            LogRow(
                time: t, provider: event.provider, id: event.id, event: "got token",
                detail: "\(token.fingerprint) in \(Self.milliseconds(latency)), expires \(Self.clock(token.expiresAt))",
                failed: false))
        add(
            \.requests,
            LaneItem(
                provider: event.provider, from: t, to: t, ok: true,
                label: "token \(token.fingerprint) in \(Self.milliseconds(latency))"), table: "requests")
        add(
            \.spans,
            LaneItem(
                provider: event.provider, from: token.receivedAt, to: max(token.receivedAt, token.expiresAt), ok: true,
                label: "token \(token.fingerprint) held until \(Self.clock(token.expiresAt))"),
            table: "tokens on the timeline")
        guard seen.insert(token.fingerprint).inserted else { return }
        if tokens.count < Self.tokenLimit {
            tokens.append(
                TokenRow(provider: event.provider, token: token, rules: Self.rules(token, kind: event.provider)))
        } else {
            cut["tokens", default: 0] += 1
        }
    }

    /// Fleet Engine's answer: its log row, its mark on the timeline, and its row in the answers' table.
    private mutating func recordFleetEngine(_ answer: FleetEngineAnswer, of event: ProviderEvent) {
        let t = event.time
        let bad = answer.tokenVerdict != .accepted || answer.verdictDisagrees
        addLog(
            LogRow(
                time: t, provider: event.provider, id: event.id, event: "Fleet Engine", detail: answer.summary,
                failed: bad))
        add(
            \.calls, LaneItem(provider: event.provider, from: t, to: t, ok: !bad, label: answer.summary),
            table: "Fleet Engine calls on the timeline")
        if answers.count < Self.rowLimit {
            answers.append(AnswerRow(time: t, provider: event.provider, id: event.id, answer: answer))
        } else {
            cut["Fleet Engine answers", default: 0] += 1
        }
    }

    private mutating func addLog(_ row: LogRow) {
        if log.count < Self.rowLimit { log.append(row) } else { cut["fetch log", default: 0] += 1 }
    }

    private mutating func add(_ lane: WritableKeyPath<SessionDigest, [LaneItem]>, _ item: LaneItem, table: String) {
        if self[keyPath: lane].count < Self.rowLimit {
            self[keyPath: lane].append(item)
        } else {
            cut[table, default: 0] += 1
        }
    }

    /// Every rule as `decode` judges the token, at the time it came; where the provider recorded
    /// its own finding for a rule (the signature, the backend's clock, the expiry field), that one.
    static func rules(_ token: FetchedToken, kind: ProviderKind) -> [RuleResult] {
        var results = TokenRules.evaluate(token.jwt, kind: kind, id: token.id, now: token.receivedAt)
        for finding in token.findings {
            if let i = results.firstIndex(where: { $0.rule == finding.rule }) {
                results[i] = finding
            } else {
                results.append(finding)
            }
        }
        return results
    }

    static func milliseconds(_ seconds: TimeInterval) -> String {
        seconds.isFinite ? "\(Int((seconds * 1000).rounded())) ms" : "? ms"
    }

    /// `12:03:04Z`: a report is read in other time zones, so it says UTC.
    static func clock(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e11 else { return "?" }
        let day = Int(seconds.rounded(.down)) % 86_400
        let s = day < 0 ? day + 86_400 : day
        return String(format: "%02d:%02d:%02dZ", s / 3600, s / 60 % 60, s % 60)
    }
}
