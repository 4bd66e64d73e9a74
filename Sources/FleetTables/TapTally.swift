import Foundation

/// How a tap's IDs of one kind stand, over every ID seen in the last hour (not only the rows a
/// table carries): churning first, then the rest by their last verdict, trouble first. What the
/// table's title, the header and the tap's summary row count.
public struct TapTally: Sendable, Equatable {
    public struct Count: Sendable, Equatable {
        /// `churning`, or a verdict as `tapped` lines print it (`http_error`, `ok`).
        public var label: String
        public var count: Int
        public var level: TappedColumns.Level

        public init(label: String, count: Int, level: TappedColumns.Level) {
            self.label = label
            self.count = count
            self.level = level
        }
    }

    /// IDs over the churn limit: their apps' providers are not caching.
    public var churning: Int
    /// The IDs not churning, by last verdict, trouble first; verdicts no ID has are left out.
    public var verdicts: [Count]
    /// Every ID by its last verdict, churning or not (`http_error`: 2): what the summary's error
    /// columns count, IDs and not fetches, so a device retrying a refusal counts once.
    public var lastVerdicts: [String: Int]
    /// Token requests in the last hour, all IDs'.
    public var fetches: Int
    /// Exchanges forwarded but never read (the tap's reading queue was full), all kinds'; nil
    /// when not known (a replay).
    public var unread: Int?

    public init(
        churning: Int = 0, verdicts: [Count] = [], lastVerdicts: [String: Int] = [:], fetches: Int = 0,
        unread: Int? = nil
    ) {
        self.lastVerdicts = lastVerdicts
        self.unread = unread
        self.churning = churning
        self.verdicts = verdicts
        self.fetches = fetches
    }

    /// Every count, churning first: `2 churning, 1 http_error, 5 ok`.
    public var counts: [Count] {
        (churning > 0 ? [Count(label: "churning", count: churning, level: .warn)] : []) + verdicts
    }

    /// IDs whose last verdict is `label` and who are not churning.
    public func count(_ label: String) -> Int { verdicts.first { $0.label == label }?.count ?? 0 }

    /// IDs whose last fetch's verdict is `label`, churning or not.
    public func ids(lastVerdict label: String) -> Int { lastVerdicts[label] ?? 0 }

    /// IDs in trouble of any kind: churning, or a verdict that is neither ok nor a warning.
    public var troubled: Int { churning + verdicts.filter { $0.level == .trouble }.reduce(0) { $0 + $1.count } }
}
