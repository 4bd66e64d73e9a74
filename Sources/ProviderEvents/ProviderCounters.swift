import ProviderVocabulary

/// Requests, cache hits and errors of one provider kind, counted from its events.
public struct ProviderCounters: Sendable, Equatable {
    public var requests = 0
    public var hits = 0
    public var errors = 0

    public init() {}

    /// Share of token calls answered from the cache; nil before any call.
    public var hitRatio: Double? {
        let calls = hits.saturatingAdd(requests)
        return calls == 0 ? nil : Double(hits) / Double(calls)
    }

    public mutating func record(_ event: ProviderEvent) {
        switch event.kind {
        // Saturating: a recording's counts are checked as read, but no count may trap a sum.
        case .cacheHit(let count, _): hits = hits.saturatingAdd(max(0, count))
        case .fetchStarted: requests = requests.saturatingAdd(1)
        case .fetchFailed(let error, _):
            // A superseded response is the provider doing its job, not a backend error.
            if case .superseded = error { return }
            errors = errors.saturatingAdd(1)
        default: break
        }
    }
}
