import Foundation

/// One real ID's fetches and tokens over the last hour, as the tap's ledger counts them and as the
/// pane that follows the ID keeps counting them: fetches per minute (sixty counters) and tokens by
/// fingerprint with the minute last seen, so an ID costs the same whether its devices ask once an
/// hour or ten times a second. Every figure is read at a given time, so a frame drawn later shows
/// the later hour, never the one counted when the ID was followed.
public struct TappedCounts: Sendable, Equatable {
    /// The hour the counts cover.
    public static let window: TimeInterval = 3600
    /// Fingerprints kept an ID: more different tokens than this in an hour is churn either way.
    static let tokenLimit = 4096

    /// Fetches in one minute since the epoch.
    struct Minute: Sendable, Equatable {
        var minute: Int
        var fetches: Int
    }
    /// Fetches per minute, the last sixty minutes' (older are dropped on read), oldest first: a
    /// list, not a table, since an ID's fetches come in time order and most IDs fetch in one
    /// minute an hour (the tap's ledger holds one of these for each of up to 100,000 IDs).
    var minutes: [Minute] = []
    /// Fingerprint -> the minute it was last seen.
    var tokens: [String: Int] = [:]
    /// The first fetch of the current run of fetches: churn is judged over the time the ID was seen.
    public private(set) var since: Date
    public private(set) var lastSeen: Date
    /// The last good token's lifetime, in seconds: what one token would have served.
    public private(set) var lifetime: TimeInterval?

    public init(since: Date) {
        self.since = since
        lastSeen = since
    }

    /// Counts a fetch at `time`; an ID quiet for longer than the window starts a new run.
    public mutating func record(at time: Date, fingerprint: String?, lifetime: TimeInterval?) {
        if time.timeIntervalSince(lastSeen) > Self.window { self = TappedCounts(since: time) }
        let minute = Self.minute(time)
        // From the newest back: a recording's or a clock's step back lands before later minutes.
        var slot = minutes.endIndex
        while slot > minutes.startIndex, minutes[slot - 1].minute > minute { slot -= 1 }
        if slot > minutes.startIndex, minutes[slot - 1].minute == minute {
            minutes[slot - 1].fetches += 1
        } else {
            minutes.insert(Minute(minute: minute, fetches: 1), at: slot)
        }
        if minutes.count > 60 { minutes.removeAll { $0.minute <= minute - 60 } }
        if let fingerprint {
            tokens[fingerprint] = minute
            if tokens.count > Self.tokenLimit { tokens = tokens.filter { $0.value > minute - 60 } }
        }
        if let lifetime { self.lifetime = lifetime }
        lastSeen = max(lastSeen, time)
    }

    /// Fetches in the hour before `now`.
    public func fetches(now: Date) -> Int {
        let minute = Self.minute(now)
        return minutes.reduce(0) { $0 + ($1.minute > minute - 60 ? $1.fetches : 0) }
    }

    /// Different tokens the answers carried in the hour before `now`.
    public func tokens(now: Date) -> Int {
        let minute = Self.minute(now)
        return tokens.values.count { $0 > minute - 60 }
    }

    /// Fetches in the last hour over the tokens the ID needed while it was watched (an hour at
    /// most): one per lifetime. Nil until a token's lifetime is known.
    public func fetchesPerToken(now: Date) -> Double? {
        guard let lifetime, lifetime > 0 else { return nil }
        let watched = min(Self.window, max(0, now.timeIntervalSince(since)))
        return Double(fetches(now: now)) / max(1, (watched / lifetime).rounded(.up))
    }

    /// `fetches 12× per token: the app's provider is not caching`.
    public static func churnSentence(_ ratio: Double) -> String {
        "fetches \(times(ratio)) per token: the app's provider is not caching"
    }

    /// The churn sentence for a narrow screen: `12× per token: not caching`.
    public static func churnBrief(_ ratio: Double) -> String { "\(times(ratio)) per token: not caching" }

    /// `12×`, `4.5×`: a ratio to a tenth, whole numbers without a decimal.
    public static func times(_ ratio: Double) -> String {
        let rounded = (ratio * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded))×" : String(format: "%.1f×", rounded)
    }

    /// Minutes since the epoch; a date past any clock's (a hostile recording's) is held at a bound.
    static func minute(_ date: Date) -> Int {
        let minutes = (date.timeIntervalSince1970 / 60).rounded(.down)
        return minutes.isFinite ? Int(min(max(minutes, -1e15), 1e15)) : 0
    }
}
