import Foundation
import ProviderVocabulary

/// One real ID's last hour as a tap's ledger kept it: what the pane shows when Enter follows the
/// ID, so an operator sees the device's past fetches and its churn at once, not only the fetches
/// after following began.
public struct TappedHistory: Sendable, Equatable {
    /// One fetch through the tap.
    public struct Fetch: Sendable, Equatable {
        public var time: Date
        /// The HTTP status the client got, when the events say it (`200`, `503`); nil when unknown.
        public var status: Int?
        /// The upstream's time to answer.
        public var latency: TimeInterval
        public var fingerprint: String?
        /// As `tapped` lines print it (`ok`, `http_error`).
        public var verdict: String
        public var level: TappedColumns.Level
        /// When the token it carried expires.
        public var expiresAt: Date?
        /// Why it failed (redacted), for a failed fetch.
        public var error: String?

        public init(
            time: Date, status: Int?, latency: TimeInterval, fingerprint: String?, verdict: String,
            level: TappedColumns.Level, expiresAt: Date? = nil, error: String? = nil
        ) {
            self.time = time
            self.status = status
            self.latency = latency
            self.fingerprint = fingerprint
            self.verdict = verdict
            self.level = level
            self.expiresAt = expiresAt
            self.error = error
        }
    }

    /// Fetches kept an ID for the pane that follows it, the newest: an hour of a device asking
    /// every minute (the counters still count every fetch).
    public static let fetchLimit = 60

    /// Oldest first, the last hour's (at most `fetchLimit`: the newest kept).
    public var fetches: [Fetch]
    /// Every fetch and token of the last hour counted, even beyond the fetches kept.
    public var counts: TappedCounts
    /// Fetches per token above which the ID churns (`--churn-limit`).
    public var churnLimit: Double
    /// The last token an answer carried: the pane's token and checks.
    public var token: FetchedToken?

    public init(fetches: [Fetch], counts: TappedCounts, churnLimit: Double, token: FetchedToken? = nil) {
        self.fetches = fetches
        self.counts = counts
        self.churnLimit = churnLimit
        self.token = token
    }

    /// A fetch after the history was taken (the followed pane's): kept and counted as the ledger does.
    public mutating func append(_ fetch: Fetch) {
        counts.record(
            at: fetch.time, fingerprint: fetch.fingerprint, lifetime: fetch.expiresAt?.timeIntervalSince(fetch.time))
        fetches.append(fetch)
        if fetches.count > Self.fetchLimit { fetches.removeFirst(fetches.count - Self.fetchLimit) }
    }

    /// The fetches kept that fall in the hour before `now`.
    public func fetches(now: Date) -> [Fetch] {
        fetches.filter { now.timeIntervalSince($0.time) <= TappedCounts.window }
    }

    /// The churn sentence at `now` (`fetches 10× per token: the app's provider is not caching`);
    /// nil while the ID's provider caches.
    public func churn(now: Date) -> String? {
        guard let ratio = counts.fetchesPerToken(now: now), ratio > churnLimit else { return nil }
        return TappedCounts.churnSentence(ratio)
    }
}
