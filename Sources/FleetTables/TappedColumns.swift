import Foundation

/// What a watcher of real devices (`tap`) counted for one ID over the last hour, beyond what the
/// provider events' member record holds: the fleet table's tap columns.
public struct TappedColumns: Sendable, Equatable {
    /// How the last exchange's verdict reads: fine, a rule warns, or trouble.
    public enum Level: Sendable, Equatable { case ok, warn, trouble }

    /// Token requests in the last hour.
    public var fetches: Int
    /// Different tokens the answers carried in the last hour.
    public var tokens: Int
    /// The last exchange's verdict as `tapped` lines print it (`ok`, `http_error`).
    public var verdict: String
    public var level: Level
    /// The last good token's lifetime, in seconds.
    public var lifetime: TimeInterval?
    /// The churn sentence cut to what a narrow table has room for (`12× per token: not caching`);
    /// nil when the ID is not churning.
    public var churnBrief: String?

    public init(
        fetches: Int, tokens: Int, verdict: String, level: Level, lifetime: TimeInterval?, churnBrief: String? = nil
    ) {
        self.churnBrief = churnBrief
        self.fetches = fetches
        self.tokens = tokens
        self.verdict = verdict
        self.level = level
        self.lifetime = lifetime
    }
}
