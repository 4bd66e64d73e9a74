import FleetTables
import Foundation
import ProviderVocabulary

/// One real ID's row in the tap's fleet table: what the devices asking for it did in the last hour.
public struct TapRow: Sendable, Equatable {
    public var kind: ProviderKind
    public var id: String
    /// Token requests for this ID in the last hour.
    public var fetches: Int
    /// Different tokens the answers carried in the last hour.
    public var tokens: Int
    public var verdict: TapVerdict
    /// The last good token's lifetime, in seconds.
    public var lifetime: TimeInterval?
    /// The last failure's sentence (redacted), kept after later successes.
    public var lastError: String?
    public var lastStatus: Int
    public var lastSeen: Date
    /// Fetches per token lifetime: how many times the ID asked while one token would have served.
    public var fetchesPerToken: Double?
    /// Over `--churn-limit`: the app's provider is not caching.
    public var churning: Bool

    public init(
        kind: ProviderKind, id: String, fetches: Int, tokens: Int, verdict: TapVerdict, lifetime: TimeInterval?,
        lastError: String?, lastStatus: Int, lastSeen: Date, fetchesPerToken: Double?, churning: Bool
    ) {
        self.kind = kind
        self.id = id
        self.fetches = fetches
        self.tokens = tokens
        self.verdict = verdict
        self.lifetime = lifetime
        self.lastError = lastError
        self.lastStatus = lastStatus
        self.lastSeen = lastSeen
        self.fetchesPerToken = fetchesPerToken
        self.churning = churning
    }

    /// Trouble first: churn, then a bad verdict.
    public var isTrouble: Bool { churning || verdict.isTrouble }

    /// What the row says is wrong, in one line: the churn sentence before a failure's.
    public var trouble: String? {
        if churning, let ratio = fetchesPerToken { return TappedCounts.churnSentence(ratio) }
        return verdict.isTrouble ? lastError ?? verdict.rawValue : nil
    }

    /// The churn sentence for a narrow screen: `12× per token: not caching`.
    public var churnBrief: String? {
        guard churning, let ratio = fetchesPerToken else { return nil }
        return TappedCounts.churnBrief(ratio)
    }

    /// Churn first (most fetches per token first), then a bad verdict, then the rest by ID.
    public static func troubleFirst(_ a: TapRow, _ b: TapRow) -> Bool {
        if a.churning != b.churning { return a.churning }
        if a.churning, let x = a.fetchesPerToken, let y = b.fetchesPerToken, x != y { return x > y }
        if a.verdict.isTrouble != b.verdict.isTrouble { return a.verdict.isTrouble }
        if a.verdict != b.verdict { return a.verdict < b.verdict }
        return (a.kind.rawValue, a.id) < (b.kind.rawValue, b.id)
    }
}
