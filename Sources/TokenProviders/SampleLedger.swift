import Foundation
import ProviderEvents
import ProviderVocabulary
import TokenJudging

/// What the sample ports keep beside the sample's own variables, so that the dashboard and
/// `watch` see them as they see tokendash's core: the ID last asked for, the requests in flight,
/// the last failure, the cache hits not yet published and the events to publish before the lock
/// is let go. Nothing here changes what the sample does; it only reports it.
struct SampleLedger: Sendable {
    let provider: ProviderKind
    /// The ID the SDK asked for last: the samples' "current" ID, as far as they have one.
    private(set) var currentID: String?
    private(set) var requestsInFlight = 0
    private(set) var lastFailure: FleetAuthError?
    /// The token text the last fetch brought and the rules refused, while none has succeeded since.
    private(set) var refusedToken: String?
    /// Hits served since the last `.cacheHit` event, all of the same ID and expiry.
    private var pendingHits = 0
    private var lastHitAt = Date.distantPast
    private var hitID = ""
    private var hitExpiry = Date.distantPast
    private var outbox: [ProviderEvent] = []

    init(provider: ProviderKind) { self.provider = provider }

    /// Records that the SDK asked for `id`; returns the ID asked for before when it was another one
    /// (and publishes the change).
    mutating func asked(_ id: String, now: Date) -> String? {
        let old = currentID
        guard id != old else { return nil }
        currentID = id
        guard let old else { return nil }
        publish(.idChanged(from: old, to: id), id: id, now: now)
        return old
    }

    /// Counts one hit serving a token that expires (as the sample reckons it) at `expiresAt`;
    /// returns whether it starts a batch, so the caller has the broadcaster collect it later.
    mutating func hit(id: String, expiresAt: Date, now: Date, counting: Bool) -> Bool {
        guard counting else { return false }
        if pendingHits > 0, id != hitID || expiresAt != hitExpiry { publishHits() }
        pendingHits += 1
        lastHitAt = now
        hitID = id
        hitExpiry = expiresAt
        return pendingHits == 1
    }

    mutating func started(id: String, reason: FetchReason, now: Date) {
        requestsInFlight += 1
        publish(.fetchStarted(reason: reason), id: id, now: now)
    }

    mutating func fetched(_ token: FetchedToken, id: String, started: Date, now: Date) {
        requestsInFlight -= 1
        lastFailure = nil
        refusedToken = nil
        publish(.fetched(token, latency: now.timeIntervalSince(started)), id: id, now: now)
    }

    mutating func failed(_ error: FleetAuthError, refused: String? = nil, id: String, started: Date, now: Date) {
        requestsInFlight -= 1
        lastFailure = error
        refusedToken = refused
        publish(.fetchFailed(error, latency: now.timeIntervalSince(started)), id: id, now: now)
    }

    /// Queues an event, after the hits counted before it so that the order stays true.
    mutating func publish(_ kind: ProviderEvent.Kind, id: String, now: Date) {
        publishHits()
        outbox.append(ProviderEvent(time: now, provider: provider, id: id, kind: kind))
    }

    /// Queues the hits counted so far as one `.cacheHit` event, timed at the last of them.
    mutating func publishHits() {
        guard pendingHits > 0 else { return }
        outbox.append(
            ProviderEvent(
                time: lastHitAt, provider: provider, id: hitID,
                kind: .cacheHit(count: pendingHits, expiresAt: hitExpiry)))
        pendingHits = 0
    }

    /// The queued events, leaving the queue empty.
    mutating func takeOutbox() -> [ProviderEvent] {
        defer { outbox = [] }
        return outbox
    }
}
