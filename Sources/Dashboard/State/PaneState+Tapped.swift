import Fleet
import FleetTables
import Foundation

extension PaneState {
    /// A followed real ID's last hour, from the tap's ledger: each fetch in the fetch log (time,
    /// status, upstream latency, verdict, expiry, fingerprint), on the timeline, and in the
    /// fetches-per-minute sparkline, so its churn shows the moment Enter is pressed.
    mutating func recall(_ history: TappedHistory, now: Date) {
        tapped = history
        log = []
        var spans: Set<String> = []
        for fetch in history.fetches {
            let ok = fetch.level != .trouble
            timeline.record(Timeline.Outcome(time: fetch.time, ok: ok, latency: fetch.latency))
            let minute = Int.clamping(fetch.time.timeIntervalSince1970 / 60)
            fetchesPerMinute[minute, default: 0] += 1
            // One span a token: a churning ID's many fetches of the same token draw it once.
            if let fingerprint = fetch.fingerprint, let expiresAt = fetch.expiresAt,
                spans.insert(fingerprint).inserted
            {
                timeline.record(
                    Timeline.Span(from: fetch.time, to: expiresAt, refreshAt: nil, fingerprint: fingerprint), at: now)
            }
            log.insert(Self.entry(fetch), at: 0)
        }
        let minute = Int.clamping(now.timeIntervalSince1970 / 60)
        fetchesPerMinute = fetchesPerMinute.filter { $0.key > minute - Self.sparklineMinutes }
        if let last = history.fetches.last, last.level == .trouble { lastError = last.error ?? last.verdict }
    }

    /// `200 ok, expires 09:50:00  #ab12cd34`, or `503 http_error: backend answered HTTP 503 …`.
    static func entry(_ fetch: TappedHistory.Fetch) -> LogEntry {
        let status = fetch.status.map(String.init) ?? "–"
        let level: LogEntry.Level =
            switch fetch.level {
            case .ok: .info
            case .warn: .warning
            case .trouble: .error
            }
        var detail = "\(status) \(fetch.verdict)"
        if let error = fetch.error, fetch.level == .trouble { detail += ": " + error }
        if fetch.expiresAt != nil { detail += ", expires" }
        return LogEntry(
            time: fetch.time, event: .fetch, detail: detail, latency: fetch.latency, level: level,
            at: fetch.expiresAt, fingerprint: fetch.fingerprint)
    }

    /// After Enter, a followed real ID's new fetch as the ledger's are listed (`fetch`, `200 ok,
    /// expires …`), kept (the ledger's last `TappedHistory.fetchLimit`) and counted as the ledger
    /// counts, so the counters drawn later are the later hour's; nil drops a line that says nothing of a real device
    /// (`request`: the tap sees a fetch once answered).
    mutating func tappedFetch(_ entry: LogEntry) -> LogEntry? {
        guard var history = tapped else { return entry }
        let fetch: TappedHistory.Fetch
        switch entry.event {
        case .request: return nil
        case .gotToken:
            fetch = TappedHistory.Fetch(
                time: entry.time, status: 200, latency: entry.latency ?? 0, fingerprint: entry.fingerprint,
                verdict: "ok", level: .ok, expiresAt: entry.at)
        case .failed:
            fetch = TappedHistory.Fetch(
                time: entry.time, status: nil, latency: entry.latency ?? 0, fingerprint: nil, verdict: "failed",
                level: .trouble, error: entry.detail)
        default: return entry
        }
        history.append(fetch)
        tapped = history
        return Self.entry(fetch)
    }
}
