import Foundation
import ProviderEvents
import ProviderVocabulary
import TokenJudging

/// A provider's fetch in flight: the ID it asks for and the task its callers wait on.
struct InFlightFetch: Sendable {
    let id: String
    let task: Task<FetchedToken, any Error>
}

/// The one copy of what a cache hit depends on: the current ID, the cached token, the fetch in
/// flight and the backoff deadline, plus the hits served since the last `.cacheHit` event.
/// `CachingTokenProvider` keeps it behind a `Mutex`; its lock-only fast path reads it and counts
/// hits, its actor changes it and queues events in `outbox`, published before the lock is released
/// so that one provider's events keep their order (hits first, then what ended them).
struct ServingState: Sendable {
    /// The fast path's view of `cached`, kept apart so that a hit copies one string, not the whole token.
    struct Serveable: Sendable {
        var token: String
        var expiresAt: Date
        var refreshAt: Date?
    }

    let provider: ProviderKind
    var currentID: String?
    var cached: FetchedToken? {
        didSet {
            serveable = cached.map { Serveable(token: $0.token, expiresAt: $0.expiresAt, refreshAt: $0.refreshAt) }
        }
    }
    private(set) var serveable: Serveable?
    var inFlight: InFlightFetch?
    /// Until when failures hold back a new fetch.
    var retryAt: Date?
    /// Hits served from `cached` for `currentID` since the last `.cacheHit` event: every change to
    /// either publishes them first, so they always concern the ID and token held now.
    private(set) var pendingHits = 0
    private var lastHitAt = Date.distantPast
    /// Events to publish before the lock is released.
    private(set) var outbox: [ProviderEvent] = []

    init(provider: ProviderKind) { self.provider = provider }

    func isBackingOff(_ now: Date) -> Bool {
        guard let retryAt else { return false }
        return now < retryAt
    }

    /// The fast path: the token for `id` when the cache can answer without the actor, i.e. it is
    /// `id`'s, valid at `now`, and no refresh-ahead is due that nobody started yet (a refresh in
    /// flight or a backoff means the old token is served as it is). The hit is counted when
    /// `counting` (someone listens); `startsBatch` says it is the first since the last `.cacheHit`.
    mutating func serve(id: String, now: Date, counting: Bool) -> (token: String, startsBatch: Bool)? {
        guard let hot = serveable, id == currentID, now < hot.expiresAt else { return nil }
        if let refreshAt = hot.refreshAt, now >= refreshAt, inFlight == nil, !isBackingOff(now) { return nil }
        return (hot.token, countHit(now: now, counting: counting))
    }

    /// Counts one hit on `cached`; returns whether it starts a new batch.
    mutating func countHit(now: Date, counting: Bool) -> Bool {
        guard counting else { return false }
        pendingHits += 1
        lastHitAt = now
        return pendingHits == 1
    }

    mutating func publish(_ kind: ProviderEvent.Kind, id: String, now: Date) {
        outbox.append(ProviderEvent(time: now, provider: provider, id: id, kind: kind))
    }

    /// Queues the hits counted so far as one `.cacheHit` event, timed at the last of them.
    mutating func publishHits() {
        guard pendingHits > 0 else { return }
        defer { pendingHits = 0 }
        guard let id = currentID, let token = serveable else { return }
        publish(.cacheHit(count: pendingHits, expiresAt: token.expiresAt), id: id, now: lastHitAt)
    }

    /// The queued events, leaving the queue empty.
    mutating func takeOutbox() -> [ProviderEvent] {
        defer { outbox = [] }
        return outbox
    }
}
