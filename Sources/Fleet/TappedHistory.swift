import FleetAuth
import Foundation

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

    /// Oldest first, the last hour's (at most the ledger's limit an ID: the newest kept).
    public var fetches: [Fetch]
    /// Every fetch of the last hour counted, even beyond the ones kept.
    public var fetchCount: Int
    /// Different tokens the answers carried.
    public var tokens: Int
    public var fetchesPerToken: Double?
    /// The churn sentence (`fetches 10× per token: the app's provider is not caching`); nil when caching.
    public var churn: String?
    /// The last token an answer carried: the pane's token and checks.
    public var token: FetchedToken?

    public init(
        fetches: [Fetch], fetchCount: Int, tokens: Int, fetchesPerToken: Double?, churn: String?,
        token: FetchedToken? = nil
    ) {
        self.token = token
        self.fetches = fetches
        self.fetchCount = fetchCount
        self.tokens = tokens
        self.fetchesPerToken = fetchesPerToken
        self.churn = churn
    }
}
