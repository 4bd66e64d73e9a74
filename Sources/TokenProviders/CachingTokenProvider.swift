import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenJudging

/// The consumer SDK's trip token provider.
public typealias ConsumerTokenProvider = CachingTokenProvider<TripAuthorizationContext>
/// The driver SDK's vehicle token provider.
public typealias DriverTokenProvider = CachingTokenProvider<VehicleAuthorizationContext>
/// The last-mile consumer SDK's tracking token provider.
public typealias DeliveryConsumerTokenProvider = CachingTokenProvider<DeliveryConsumerAuthorizationContext>
/// The last-mile driver SDK's delivery vehicle token provider.
public typealias DeliveryDriverTokenProvider = CachingTokenProvider<DeliveryDriverAuthorizationContext>

/// The one caching token provider behind both SDKs. It fixes the flaws of Google's samples:
/// concurrent callers share one request, tokens are refreshed `refreshMargin` seconds before
/// they expire, a response for an ID that is no longer current is thrown away, failures back
/// off, and every step is published as a `ProviderEvent`.
///
/// A cache hit costs a lock, not an actor hop: `fetchToken` first asks the `ServingState` behind
/// `serving` and goes into the actor only when that cannot answer (no token, expired, another
/// ID, a refresh-ahead to start). Hits are counted there and published as one `.cacheHit` per batch.
public final actor CachingTokenProvider<Context: AuthorizationContext> {
    public nonisolated let kind: ProviderKind
    public nonisolated let endpoint: TokenEndpoint
    public nonisolated let events: EventBroadcaster
    /// Seconds before expiry at which a fetch starts while the old token is still served. 0 waits for expiry.
    public let refreshMargin: TimeInterval

    private let transport: any TokenTransport
    /// Made per fetch from `endpoint`: a copy of the endpoint kept beside it was 100 bytes of every fleet member.
    private nonisolated var decoder: TokenResponseDecoder { TokenResponseDecoder(endpoint: endpoint) }
    /// Judges each fetched token's signature before it is cached; nil records "not checked".
    private let verifier: (any SignatureVerifier)?
    private nonisolated let clock: any ProviderClock
    private let backoff: BackoffPolicy
    private let random: @Sendable () -> Double

    // Guards the current ID, the cached token, the fetch in flight, the backoff deadline and the
    // hits not yet published: the one copy of them, read by the fast path, changed by the actor
    // only through `update`.
    private nonisolated let serving: Mutex<ServingState>
    /// Bumped on every ID change; a fetch whose epoch is not current is discarded.
    private var epoch = 0
    private var failures = 0
    /// Refresh-aheads in a row that brought back the token already cached.
    private var reservedStreak = 0
    private var lastError: FleetAuthError?
    /// Callers suspended on the in-flight fetch; the dashboard shows it, tests use it to know all callers joined.
    public private(set) var waitingCallers = 0

    public init(
        endpoint: TokenEndpoint,
        transport: any TokenTransport,
        refreshMargin: TimeInterval = 300,
        backoff: BackoffPolicy = BackoffPolicy(),
        clock: any ProviderClock = SystemClock(),
        events: EventBroadcaster = EventBroadcaster(),
        verifier: (any SignatureVerifier)? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        precondition(endpoint.kind == Context.kind, "a \(Context.kind) provider needs a \(Context.kind) endpoint")
        self.kind = Context.kind
        self.endpoint = endpoint
        self.transport = transport
        self.refreshMargin = max(0, refreshMargin)
        self.backoff = backoff
        self.clock = clock
        self.events = events
        self.verifier = verifier
        self.random = random
        self.serving = Mutex(ServingState(provider: Context.kind))
    }

    /// The token for the context's ID: the cached one while valid, else one fetched from the backend.
    /// Throws `FleetAuthError`.
    ///
    /// Inlined into the caller (the actor is `final` so that the call is not dispatched through a
    /// vtable) and run on the caller's executor, so that a hit is one call to `cachedToken(for:)`:
    /// no hop, no generic code left to look the context's type up at run time.
    @inlinable
    public nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String {
        guard let id = context?.id, !id.isEmpty else { throw FleetAuthError.missingAuthorizationContext(kind) }
        if let token = cachedToken(for: id) { return token }
        return try await fetchTokenOnActor(id: id)
    }

    /// The SDKs' shape: `fetchToken(with:completion:)`, answering with a token or an error.
    public nonisolated func fetchToken(
        with context: Context?, completion: @escaping @Sendable (String?, (any Error)?) -> Void
    ) {
        Task {
            do { completion(try await self.fetchToken(for: context), nil) } catch { completion(nil, error) }
        }
    }

    /// Fetches a new token for the current ID now, ignoring backoff. The old token, if still
    /// valid, is served until the new one arrives, and kept if the fetch fails.
    @discardableResult
    public func forceRefresh() async throws -> String {
        guard let id = currentID else { throw FleetAuthError.missingAuthorizationContext(kind) }
        let now = clock.now()
        update { s in
            s.publish(.forcedRefresh, id: id, now: now)
            s.retryAt = nil
        }
        if let flight = inFlight, flight.id == id { return try await wait(for: flight.task) }
        return try await wait(for: startFetch(id: id, reason: .forced, now: now))
    }

    /// The token currently cached, valid or not; for display.
    public var cachedToken: FetchedToken? { cached }
    public var currentIdentifier: String? { currentID }
    /// The current ID and the cached token read in one step: two separate reads can straddle a switch.
    public var snapshot: (id: String?, token: FetchedToken?) { serving.withLock { ($0.currentID, $0.cached) } }
    /// Why the last fetch failed, while no fetch has succeeded since.
    public var lastFailure: FleetAuthError? { lastError }
    /// Whether a request to the backend is in flight now.
    public var isFetching: Bool { inFlight != nil }
    /// The token the last fetch brought and the rules refused, while no fetch has succeeded
    /// since: the SDK is handed no such token, but a simulated one asks Fleet Engine about it.
    public private(set) var refusedToken: String?

    /// Publishes the cache hits counted since the last `.cacheHit` event, now. The broadcaster
    /// calls it within its `hitFlushInterval`; anyone may, e.g. before reading a total.
    public nonisolated func publishCountedEvents() {
        serving.withLock { s in
            s.publishHits()
            for event in s.takeOutbox() { events.publish(event) }
        }
    }

    // MARK: - Internals

    private var currentID: String? { serving.withLock { $0.currentID } }
    private var cached: FetchedToken? { serving.withLock { $0.cached } }
    private var inFlight: InFlightFetch? { serving.withLock { $0.inFlight } }
    private var retryAt: Date? { serving.withLock { $0.retryAt } }

    /// Every change to the serving state: the hits served from it as it was are published first,
    /// then `change` runs and the events it queued are published, all under the lock, so a hit is
    /// never counted against a token or ID it was not served from and the events keep their order.
    private func update<T: Sendable>(_ change: (inout ServingState) -> T) -> T {
        serving.withLock { s in
            s.publishHits()
            let result = change(&s)
            for event in s.takeOutbox() { events.publish(event) }
            return result
        }
    }

    /// The fast path, under the lock only: `id`'s cached token when it can be served without the
    /// actor (see `ServingState.serve`), counted as a hit; nil sends the caller to `fetchTokenOnActor`.
    @usableFromInline
    nonisolated func cachedToken(for id: String) -> String? {
        let counting = events.isObserved
        let now = clock.now()
        guard let hit = serving.withLock({ $0.serve(id: id, now: now, counting: counting) }) else { return nil }
        if hit.startsBatch { events.publishLater(self) }
        return hit.token
    }

    /// The slow path, on the actor: everything the fast path could not answer.
    @usableFromInline
    func fetchTokenOnActor(id: String) async throws -> String {
        let now = clock.now()
        var reason = switchID(to: id, now: now) ? FetchReason.idChanged : .noToken

        if let token = cached {
            if token.expiresAt > now {
                if let refreshAt = token.refreshAt, now >= refreshAt, inFlight == nil, !isBackingOff(now) {
                    _ = startFetch(id: id, reason: .refreshAhead, now: now)
                }
                let counting = events.isObserved
                if serving.withLock({ $0.countHit(now: now, counting: counting) }) { events.publishLater(self) }
                return token.token
            }
            update { s in
                s.publish(.expired(at: token.expiresAt), id: id, now: now)
                s.cached = nil
            }
            reason = .expired
        }
        if let flight = inFlight, flight.id == id {
            return try await wait(for: flight.task)
        }
        if let retryAt, now < retryAt {
            throw FleetAuthError.backingOff(
                retryInSeconds: Int(retryAt.timeIntervalSince(now).rounded(.up)),
                lastError: lastError?.description ?? "an earlier failure")
        }
        return try await wait(for: startFetch(id: id, reason: reason, now: now))
    }

    /// Records a new ID; returns whether it changed from a previous one.
    private func switchID(to id: String, now: Date) -> Bool {
        let old = currentID
        guard id != old else { return false }
        epoch += 1
        failures = 0
        reservedStreak = 0
        lastError = nil
        let abandoned = update { s -> InFlightFetch? in
            s.currentID = id
            s.retryAt = nil
            guard let old else { return nil }
            s.publish(.idChanged(from: old, to: id), id: id, now: now)
            if s.cached != nil {
                s.cached = nil
                s.publish(.cacheDropped(reason: "\(kind.idNoun) changed from \(old)"), id: old, now: now)
            }
            defer { s.inFlight = nil }
            return s.inFlight
        }
        // Its waiters get `superseded`; cancelling saves the request if it is not done yet.
        abandoned?.task.cancel()
        return old != nil
    }

    private func wait(for task: Task<FetchedToken, any Error>) async throws -> String {
        waitingCallers += 1
        defer { waitingCallers -= 1 }
        return try await task.value.token
    }

    /// Spread of the refresh point: ±10 % of the margin. Providers started together (a fleet, a
    /// backend restart) would otherwise refresh together, every lifetime, in one burst.
    public nonisolated static var refreshJitter: Double { 0.1 }

    /// When to fetch `token`'s successor: the capped margin before expiry, jittered by `refreshJitter`.
    private func refreshPoint(_ token: FetchedToken) -> Date {
        let margin = FetchedToken.effectiveMargin(refreshMargin, lifetime: token.lifetime)
        return token.expiresAt.addingTimeInterval(-margin * (1 + Self.refreshJitter * (2 * random() - 1)))
    }

    private func isBackingOff(_ now: Date) -> Bool {
        serving.withLock { $0.isBackingOff(now) }
    }

    private func startFetch(id: String, reason: FetchReason, now: Date) -> Task<FetchedToken, any Error> {
        update { $0.publish(.fetchStarted(reason: reason), id: id, now: now) }
        let fetchEpoch = epoch
        let request: TransportRequest
        do {
            request = TransportRequest(
                url: try endpoint.url(for: id), headers: endpoint.headers,
                timeout: endpoint.timeout, maxBodyBytes: endpoint.maxBodyBytes)
        } catch {
            let task = Task<FetchedToken, any Error> { throw error }
            recordFailure(error, id: id, started: now)
            return task
        }
        let task = Task<FetchedToken, any Error> { [transport, decoder, clock, verifier] in
            let result: Result<FetchedToken, FleetAuthError>
            var received: TransportResponse?
            do {
                let sent = clock.now()
                let response = try await transport.send(request)
                received = response
                var token = try decoder.decode(response, id: id, now: clock.now(), sentAt: sent)
                let signature = await verifier?.verify(token.token, jwt: token.jwt) ?? .signatureNotConfigured
                // A token whose signature fails is refused like any failed rule: nothing is cached.
                if signature.level == .fail { throw FleetAuthError.rejected([signature]) }
                token.findings.append(signature)
                result = .success(token)
            } catch let error as FleetAuthError {
                result = .failure(error)
            } catch {
                result = .failure(.other("\(error)"))
            }
            var refused: String?
            if case .failure(let error) = result, error.isTokenRejection {
                refused = received.flatMap(decoder.tokenText)
            }
            return try self.complete(result, id: id, epoch: fetchEpoch, started: now, reason: reason, refused: refused)
        }
        update { $0.inFlight = InFlightFetch(id: id, task: task) }
        return task
    }

    private func complete(
        _ result: Result<FetchedToken, FleetAuthError>, id: String, epoch fetchEpoch: Int, started: Date,
        reason: FetchReason, refused: String? = nil
    ) throws -> FetchedToken {
        let now = clock.now()
        guard fetchEpoch == epoch, let current = currentID else {
            let error = FleetAuthError.superseded(requested: id, current: currentID ?? "none")
            update { $0.publish(.fetchFailed(error, latency: now.timeIntervalSince(started)), id: id, now: now) }
            throw error
        }
        switch result {
        case .success(var token):
            token.refreshAt = refreshPoint(token)
            if reason == .refreshAhead, let previous = cached, previous.token == token.token {
                backOffRefreshAhead(&token, now: now)
            } else {
                reservedStreak = 0
            }
            failures = 0
            lastError = nil
            refusedToken = nil
            // A fleet's tokens say the same things: one shared copy of the words for all of them.
            token.findings = FindingsPool.shared.intern(token.findings)
            let fetched = token
            update { s in
                s.inFlight = nil
                // The event carries the decoded claims to its readers; the cache keeps the text.
                s.cached = fetched.cacheable
                s.retryAt = nil
                s.publish(.fetched(fetched, latency: now.timeIntervalSince(started)), id: current, now: now)
            }
            return token
        case .failure(let error):
            refusedToken = refused
            recordFailure(error, id: id, started: started)
            throw error
        }
    }

    /// A backend that caches tokens itself can answer a refresh-ahead with the token we already
    /// hold. Asking again at every SDK update would not get a newer one sooner, so the next
    /// refresh-ahead waits like a retry after a failure (doubling, jittered, never past expiry),
    /// and the first time it happens the token carries a warning that says so.
    private func backOffRefreshAhead(_ token: inout FetchedToken, now: Date) {
        reservedStreak += 1
        let delay = backoff.delay(afterFailures: reservedStreak, unit: random())
        token.refreshAt = min(now.addingTimeInterval(delay), token.expiresAt)
        if reservedStreak == 1 {
            let left = InputBounds.wholeSeconds(token.expiresAt.timeIntervalSince(now))
            token.findings.append(
                RuleResult(
                    .refresh, .warn,
                    "the backend re-served the token we hold (\(left) s left); refresh-ahead backs off instead of asking at every update"
                ))
        }
    }

    /// Ends the fetch in flight (if any; `startFetch` fails some before one exists) as failed.
    private func recordFailure(_ error: FleetAuthError, id: String, started: Date) {
        let now = clock.now()
        failures += 1
        lastError = error
        var delay = backoff.delay(afterFailures: failures, unit: random())
        // A 429 or 503 that says when to come back is obeyed, even past our own backoff.
        if case .httpStatus(_, _, let retryAfter?) = error { delay = max(delay, TimeInterval(retryAfter)) }
        update { s in
            s.inFlight = nil
            s.retryAt = now.addingTimeInterval(delay)
            s.publish(.fetchFailed(error, latency: now.timeIntervalSince(started)), id: id, now: now)
            // When the next request may go, so a screen can say "retrying in N s (attempt k)".
            s.publish(.backingOff(until: now.addingTimeInterval(delay), attempt: failures), id: id, now: now)
        }
    }
}

extension CachingTokenProvider: CountedEventSource {}
