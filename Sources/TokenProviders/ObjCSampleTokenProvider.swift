import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenJudging

/// A faithful port of the Objective-C `SampleAccessTokenProvider` on Google's "Get authorization
/// tokens" pages: /work/shared/seeds/003_5d3db011ec98076c.txt (Driver SDK, vehicle token,
/// lines 103-202) and /work/shared/seeds/000_600d290c07f2ea16.txt (Consumer SDK, trip token,
/// lines 86-172). Citations below read `003:140 / 000:116`. One generic port serves every kind,
/// the delivery ones included; where the two pages differ (a missing ID) the kind's role decides.
///
/// Its flaws are kept, each marked "Faithful flaw": no single-flight, no refresh-ahead, no
/// backoff, an expiry counted from when the answer is handled rather than when the token was
/// minted, an expiry left over from before when an answer has no number, and the stale serve:
/// the completion handler caches whatever answer arrives, for whatever ID it was asked, so a late
/// answer for the ID the SDK has left is served for the ID it is on now. The request and the
/// reading of the answer go through tokendash's transport and decoder (`SampleFetch`); the events
/// report and change nothing.
///
/// A `Mutex`, not an actor: the broadcaster collects counted hits synchronously, and the sample's
/// steps (the call, the completion on the main queue) each read and write its three variables at once.
public final class ObjCSampleTokenProvider<Context: AuthorizationContext>: TokenProviderCore, CountedEventSource {
    /// The sample's three instance variables, and the ledger that reports them.
    private struct State: SampleState {
        // The cached vehicle (trip) token: `NSString *_cachedVehicleToken`.
        var cachedToken: FetchedToken?
        // Keep track of the vehicle (trip) ID the cached token is for: `NSString *_lastKnownVehicleID`.
        var lastKnownID: String?
        // Keep track of when tokens expire for caching: `NSTimeInterval _tokenExpiration`, 0 at first.
        var tokenExpiration = Date(timeIntervalSince1970: 0)
        var ledger: SampleLedger
    }

    public let kind: ProviderKind
    public let endpoint: TokenEndpoint
    public let events: EventBroadcaster
    private let fetcher: SampleFetch
    private let clock: any ProviderClock
    // Guards the sample's three variables and the ledger; held for a step, never across a request.
    private let state: SampleStateLock<State>

    public init(
        endpoint: TokenEndpoint, transport: any TokenTransport, clock: any ProviderClock = SystemClock(),
        events: EventBroadcaster = EventBroadcaster()
    ) {
        precondition(endpoint.kind == Context.kind, "a \(Context.kind) provider needs a \(Context.kind) endpoint")
        kind = Context.kind
        self.endpoint = endpoint
        self.events = events
        self.clock = clock
        fetcher = SampleFetch(endpoint: endpoint, transport: transport, clock: clock)
        state = SampleStateLock(State(ledger: SampleLedger(provider: Context.kind)), events: events)
    }

    private enum Step {
        case hit(String, startsBatch: Bool)
        case fetch
    }

    /// The sample's `fetchTokenWithContext:completion:`, the completion being the return.
    public nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String {
        guard let id = context?.id, !id.isEmpty else {
            // The driver page asserts (003:133-137 `if (!vehicleID) { NSAssert(NO, ...); return; }`:
            // a crash in debug builds, a completion never called in release ones). The consumer page
            // has no check: `[_lastKnownTripID isEqual:nil]` is NO, so 000:116-120 clear the cache and
            // forget the last ID, then it asks its URL without an ID. Here the caller gets the Swift
            // sample's error rather than hanging, and tokendash's request, which needs an ID, is not made.
            if Context.kind.role == .consumer {
                state.change { s in
                    s.tokenExpiration = Date(timeIntervalSince1970: 0)
                    s.cachedToken = nil
                    s.lastKnownID = nil
                }
            }
            throw FleetAuthError.missingAuthorizationContext(kind)
        }
        let now = clock.now()
        let counting = events.isObserved
        let step = state.change { s -> Step in
            var reason = FetchReason.noToken
            let switched = s.ledger.asked(id, now: now) != nil
            // 003:140-143 / 000:116-119 `if (![_lastKnownVehicleID isEqual:vehicleID]) {
            // _tokenExpiration = 0.0; _cachedVehicleToken = nil; }`
            if s.lastKnownID != id {
                if switched { reason = .idChanged }
                if s.cachedToken != nil, let old = s.lastKnownID {
                    s.ledger.publish(.cacheDropped(reason: "\(kind.idNoun) changed from \(old)"), id: old, now: now)
                }
                s.tokenExpiration = Date(timeIntervalSince1970: 0)
                s.cachedToken = nil
            }
            // 003:144 / 000:120 `_lastKnownVehicleID = vehicleID;`
            s.lastKnownID = id
            // 003:147-149 / 000:122-124 `if ([[NSDate date] timeIntervalSince1970] > _tokenExpiration)
            // { _cachedVehicleToken = nil; }`: strictly later, so the token is still served at the
            // very instant it expires. Faithful flaw: nothing is refreshed ahead of expiry.
            if now > s.tokenExpiration, s.cachedToken != nil {
                s.ledger.publish(.expired(at: s.tokenExpiration), id: id, now: now)
                s.cachedToken = nil
                reason = .expired
            }
            // 003:152-155 / 000:126-129 `if (_cachedVehicleToken) { completion(_cachedVehicleToken, nil); }`
            // Faithful flaw: whatever the cache holds, for whatever ID its answer was asked (see
            // the completion below), is served for this ID.
            if let cached = s.cachedToken {
                return .hit(
                    cached.token,
                    startsBatch: s.ledger.hit(id: id, expiresAt: s.tokenExpiration, now: now, counting: counting))
            }
            // Faithful flaw: no single-flight. Every caller that gets here makes its own request
            // (003:193-198 / 000:165-170, a data task per call), however many are already out.
            s.ledger.started(id: id, reason: reason, now: now)
            return .fetch
        }
        switch step {
        case .hit(let token, let startsBatch):
            if startsBatch { events.publishLater(self) }
            return token
        case .fetch:
            return try await fetch(id: id, started: now)
        }
    }

    /// tokendash's force-refresh key, which the sample has not: the sample's request for the last
    /// known ID, its cache not consulted, its answer handled as the sample's completion handles any.
    @discardableResult
    public func forceRefresh() async throws -> String {
        let now = clock.now()
        let id = state.change { s -> String? in
            guard let id = s.lastKnownID else { return nil }
            s.ledger.publish(.forcedRefresh, id: id, now: now)
            s.ledger.started(id: id, reason: .forced, now: now)
            return id
        }
        guard let id else { throw FleetAuthError.missingAuthorizationContext(kind) }
        return try await fetch(id: id, started: now)
    }

    /// The sample's data task and its completion handler (003:166-191 / 000:140-163), run when the
    /// answer comes, as on the main queue: one completion at a time, in the order answers arrive.
    private func fetch(id: String, started: Date) async throws -> String {
        let (result, refused) = await fetcher.run(id: id)
        // The completion handler's `[NSDate date]`: when the answer is handled.
        let now = clock.now()
        switch result {
        case .failure(let error):
            // 003:170-173 / 000:144-147 `if (error) { completion(nil, error); return; }` and
            // 003:179-181 / 000:151-153 `if (JSONError) {...}`: the cache is untouched.
            state.change { $0.ledger.failed(error, refused: refused, id: id, started: started, now: now) }
            throw error
        case .success(let answer):
            var token = answer.token
            let served = state.change { s -> FetchedToken in
                // 003:184-188 / 000:156-160 `if ([expirationData isKindOfClass:[NSNumber class]]) {
                // _tokenExpiration = [[NSDate date] timeIntervalSince1970] + expirationTime; }`.
                // Faithful flaw: the seconds the backend gave at minting are counted from now, when
                // the answer is handled, so the token is served for as long past its real expiry as
                // the answer took to come (and the backend's clock is behind). Without a number the
                // expiry stays as it was: 0 after an ID change (the next call fetches again), or the
                // previous token's (the new one is served until then, expired or not).
                if let expiry = answer.expiry {
                    s.tokenExpiration = now.addingTimeInterval(expiry.seconds(mintedAt: answer.mintedAt))
                }
                token.refreshAt = s.tokenExpiration
                // 003:189 / 000:161 `strongSelf->_cachedVehicleToken = JSONResponse[vehicleTokenKey];`
                // Faithful flaw, the stale serve: cached whatever ID it was asked for, even when
                // `_lastKnownVehicleID` has moved on since; the next call for the new ID is served it
                // (its `authorization` claim names the old ID) until `_tokenExpiration`.
                s.cachedToken = token.cacheable
                s.ledger.fetched(token, id: id, started: started, now: now)
                return token
            }
            // 003:190 / 000:162 `completion(JSONResponse[vehicleTokenKey], nil);`
            return served.token
        }
    }

    // MARK: - What the dashboard reads

    /// The last known ID and the sample's cached token, whatever ID that token was asked for.
    public var snapshot: (id: String?, token: FetchedToken?) {
        state.read { ($0.lastKnownID ?? $0.ledger.currentID, $0.cachedToken) }
    }
    public var lastFailure: FleetAuthError? { state.lastFailure }
    public var isFetching: Bool { state.requestsInFlight > 0 }
    public var refusedToken: String? { state.refusedToken }
    /// Requests out now: with no single-flight, one per caller that missed.
    public var requestsInFlight: Int { state.requestsInFlight }
    /// When the sample considers its cached token expired: `_tokenExpiration`.
    public var sampleExpiration: Date { state.read { $0.tokenExpiration } }

    public func publishCountedEvents() { state.publishCountedEvents() }
}
