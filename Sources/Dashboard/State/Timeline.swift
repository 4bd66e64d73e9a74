import Foundation

/// What a pane's timeline draws: the tokens it held, its fetches and its ID changes, over the
/// last hour at most.
public struct Timeline: Equatable, Sendable {
    /// One token's life: from `iat` (or receipt) to its expiry, with the refresh point.
    public struct Span: Equatable, Sendable {
        public var from: Date
        public var to: Date
        public var refreshAt: Date?
        public var fingerprint: String
    }

    /// One request's outcome and how long it took.
    public struct Outcome: Equatable, Sendable {
        public var time: Date
        public var ok: Bool
        public var latency: TimeInterval
    }

    /// One Fleet Engine call with the token, and whether it succeeded.
    public struct Call: Equatable, Sendable {
        public var time: Date
        public var ok: Bool
    }

    /// The zoom levels `+` and `-` step through, in minutes.
    public static let zoomLevels = [2, 10, 60]
    static let keep: TimeInterval = 3600
    static let maxSpans = 400
    static let maxOutcomes = 4000

    public var spans: [Span] = []
    public var outcomes: [Outcome] = []
    public var idChanges: [Date] = []
    public var calls: [Call] = []

    mutating func record(_ token: Span, at now: Date) {
        spans.append(token)
        trim(now)
    }

    mutating func record(_ outcome: Outcome) {
        outcomes.append(outcome)
        trim(outcome.time)
    }

    mutating func record(_ call: Call) {
        calls.append(call)
        trim(call.time)
    }

    mutating func recordIDChange(at time: Date) {
        idChanges.append(time)
        trim(time)
    }

    /// Drops what ended more than an hour ago, and bounds the counts, so a long run stays small.
    private mutating func trim(_ now: Date) {
        let horizon = now.addingTimeInterval(-Self.keep)
        if let first = spans.firstIndex(where: { $0.to >= horizon }), first > 0 { spans.removeFirst(first) }
        if spans.count > Self.maxSpans { spans.removeFirst(spans.count - Self.maxSpans) }
        if let first = outcomes.firstIndex(where: { $0.time >= horizon }), first > 0 { outcomes.removeFirst(first) }
        if outcomes.count > Self.maxOutcomes { outcomes.removeFirst(outcomes.count - Self.maxOutcomes) }
        if let first = idChanges.firstIndex(where: { $0 >= horizon }), first > 0 { idChanges.removeFirst(first) }
        if let first = calls.firstIndex(where: { $0.time >= horizon }), first > 0 { calls.removeFirst(first) }
        if calls.count > Self.maxOutcomes { calls.removeFirst(calls.count - Self.maxOutcomes) }
    }
}
