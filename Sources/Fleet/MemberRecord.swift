import FleetAuth
import Foundation

/// One member of a fleet as its provider's events describe it: the row the fleet table shows.
/// Every field comes from an event, so a replay of the events rebuilds it.
struct MemberRecord: Sendable {
    /// Failure texts are kept to this many characters: 20,000 members stay small.
    static let errorLimit = 300

    var id: String
    /// The cached token's expiry; kept after `expired` (the member is then expired), cleared when the ID changes.
    var expiresAt: Date?
    /// The provider's (jittered) refresh point for that token.
    var refreshAt: Date?
    /// The last failure's text, as the event carries it (redacted), and when it came.
    var lastError: String?
    var failedAt: Date?
    /// Consecutive failures since the last token; the provider's backoff doubles with them.
    var failures = 0
    /// A 429 or 503's `Retry-After`, which the provider obeys beyond its own backoff.
    var retryAfter: Int?
    var fetching = false
    /// Requests to the backend for this ID.
    var requests = 0

    init(id: String) { self.id = id }

    mutating func record(_ event: ProviderEvent) {
        switch event.kind {
        case .fetchStarted:
            requests += 1
            fetching = true
        case .fetched(let token, _):
            expiresAt = token.expiresAt
            refreshAt = token.refreshAt
            failures = 0
            retryAfter = nil
            fetching = false
        case .fetchFailed(let error, _):
            // A discarded answer for a previous ID says nothing about this one.
            if case .superseded = error { return }
            let text = error.description
            lastError = text.count > Self.errorLimit ? String(text.prefix(Self.errorLimit - 1)) + "…" : text
            failedAt = event.time
            failures += 1
            if case .httpStatus(_, _, let seconds?) = error { retryAfter = seconds } else { retryAfter = nil }
            fetching = false
        case .cacheDropped:
            expiresAt = nil
            refreshAt = nil
        default:
            break
        }
    }

    /// A new ID in the same SDK: a new member, in the same place.
    mutating func rename(to id: String) {
        self = MemberRecord(id: id)
    }

    /// The status at `now`. Backing off is the provider's own rule replayed: after `failures` in a
    /// row it waits `backoff`'s delay (without jitter) or the `Retry-After`, whichever is longer.
    func status(at now: Date, backoff: BackoffPolicy) -> MemberStatus {
        if let expiresAt, expiresAt > now { return failures > 0 ? .stale : .ok }
        if failures > 0 {
            if !fetching, let failedAt {
                let wait = max(backoff.delay(afterFailures: failures, unit: 0.5), TimeInterval(retryAfter ?? 0))
                if now < failedAt.addingTimeInterval(wait) { return .backingOff }
            }
            return .failing
        }
        return expiresAt == nil ? .noToken : .expired
    }

    /// Inside the refresh margin: the token is valid and its refresh point has passed.
    func inRefreshMargin(at now: Date) -> Bool {
        guard let expiresAt, let refreshAt else { return false }
        return refreshAt <= now && now < expiresAt
    }
}
