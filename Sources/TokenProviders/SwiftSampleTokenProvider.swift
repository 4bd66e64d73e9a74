import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenJudging

/// A faithful port of the Swift `SampleAccessTokenProvider` on Google's "Get authorization
/// tokens" pages: /work/shared/seeds/003_5d3db011ec98076c.txt (Driver SDK, vehicle token,
/// lines 33-101) and /work/shared/seeds/000_600d290c07f2ea16.txt (Consumer SDK, trip token,
/// lines 21-85), the same code but for the ID's name. Citations below read `003:67 / 000:55`.
/// One generic port serves every kind, the delivery ones included, as tokendash's core does.
///
/// Its flaws are kept, each marked "Faithful flaw": no single-flight, no refresh-ahead, no
/// backoff, an absolute expiry taken from the response's number, and a late answer for an ID
/// the SDK has left replacing the cached token (tagged with the old ID: never served for the
/// new one, but the new one's token is lost and fetched again). The request and the reading of
/// the answer go through tokendash's transport and decoder (`SampleFetch`); the events are
/// reporting only and change nothing the sample does.
///
/// A `Mutex`, not an actor: the broadcaster collects counted hits synchronously
/// (`publishCountedEvents`), and each step of the sample reads and writes its one variable at once.
public final class SwiftSampleTokenProvider<Context: AuthorizationContext>: TokenProviderCore, CountedEventSource {
    /// The sample's `private struct AuthToken`.
    struct AuthToken: Sendable {
        // The cached token (the sample keeps its text; the pane reads the rest).
        let token: FetchedToken
        // Keep track of when the token expires for caching.
        let expiration: Date
        // Keep track of the vehicle (trip) ID the cached token is for.
        let id: String
    }

    private struct State: SampleState {
        /// The sample's `private var authToken: AuthToken?`.
        var authToken: AuthToken?
        var ledger: SampleLedger
    }

    public let kind: ProviderKind
    public let endpoint: TokenEndpoint
    public let events: EventBroadcaster
    private let fetcher: SampleFetch
    private let clock: any ProviderClock
    // Guards the sample's cached token and the ledger that reports it; held for a step, never across a request.
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

    /// The sample's `fetchToken(with:completion:)`, the completion being the return.
    public nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String {
        // 003:59 / 000:48 `guard let authorizationContext = authorizationContext else {
        // completion(nil, AccessTokenError.missingAuthorizationContext)`; an empty ID is no ID here
        // (the SDKs' IDs are non-null, and tokendash's request needs one).
        guard let id = context?.id, !id.isEmpty else { throw FleetAuthError.missingAuthorizationContext(kind) }
        let now = clock.now()
        let counting = events.isObserved
        let step = state.change { s -> Step in
            _ = s.ledger.asked(id, now: now)
            // 003:66-67 / 000:54-55 `if let authToken = authToken, authToken.expiration >
            // Date.now.timeIntervalSince1970 && authToken.vehicleID == vehicleID`.
            // Faithful flaw: valid until the instant the response named, by this device's clock;
            // nothing is refreshed ahead of it, so each expiry is a miss that waits for the backend.
            if let cached = s.authToken, cached.expiration > now, cached.id == id {
                return .hit(
                    cached.token.token,
                    startsBatch: s.ledger.hit(id: id, expiresAt: cached.expiration, now: now, counting: counting))
            }
            // Faithful flaw: no single-flight. Every caller that gets here makes its own request
            // (003:75 / 000:62 `URLSession.shared.dataTask`, one per call), however many are already out.
            var reason = FetchReason.noToken
            if let cached = s.authToken {
                if cached.id != id {
                    reason = .idChanged
                } else {
                    s.ledger.publish(.expired(at: cached.expiration), id: id, now: now)
                    reason = .expired
                }
            }
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

    /// tokendash's force-refresh key, which the sample has not: the sample's request for the ID
    /// asked for last, its cache not consulted, its answer handled as the sample handles any.
    @discardableResult
    public func forceRefresh() async throws -> String {
        let now = clock.now()
        let id = state.change { s -> String? in
            guard let id = s.ledger.currentID else { return nil }
            s.ledger.publish(.forcedRefresh, id: id, now: now)
            s.ledger.started(id: id, reason: .forced, now: now)
            return id
        }
        guard let id else { throw FleetAuthError.missingAuthorizationContext(kind) }
        return try await fetch(id: id, started: now)
    }

    /// The sample's data task and its completion handler (003:75-98 / 000:62-82).
    private func fetch(id: String, started: Date) async throws -> String {
        let (result, refused) = await fetcher.run(id: id)
        let now = clock.now()
        switch result {
        case .failure(let error):
            // 003:77-79 / 000:64-66 `guard error == nil else { completion(nil, error) }`: the cache is untouched.
            state.change { $0.ledger.failed(error, refused: refused, id: id, started: started, now: now) }
            throw error
        case .success(let answer):
            // 003:86-92 / 000:72-78 `let expiration = fetchData[tokenExpirationKey] as? Double else {
            // completion(nil, AccessTokenError.missingData)`: an answer without a number there
            // is a failure, the token in it thrown away.
            guard let expiry = answer.expiry else {
                let error = Self.missingData(answer.token, endpoint: endpoint)
                state.change { $0.ledger.failed(error, id: id, started: started, now: now) }
                throw error
            }
            var token = answer.token
            token.refreshAt = expiry.instant(mintedAt: answer.mintedAt)
            let cached = AuthToken(
                token: token.cacheable, expiration: expiry.instant(mintedAt: answer.mintedAt), id: id)
            state.change { s in
                // 003:95-96 / 000:80 `strongSelf.authToken = AuthToken(token: token, expiration:
                // expiration, vehicleID: vehicleID)`. Faithful flaw: `vehicleID` is the one this
                // call captured, so an answer that comes after the SDK moved to another ID still
                // replaces the cached token, the new ID's included. Tagged with the old ID it is
                // never served for the new one (`authToken.vehicleID == vehicleID` above), but the
                // new ID's next call misses and asks the backend again.
                s.authToken = cached
                s.ledger.fetched(token, id: id, started: started, now: now)
            }
            // 003:97 / 000:81 `completion(token, nil)`: the caller gets the token it asked for.
            return token.token
        }
    }

    /// The sample's `AccessTokenError.missingData` in tokendash's words: no number under the expiry key.
    static func missingData(_ token: FetchedToken, endpoint: TokenEndpoint) -> FleetAuthError {
        .other(
            "missingData: the response (\(token.shape ?? "unknown shape")) has no number under an expiry key; "
                + "Google's Swift sample drops its token then")
    }

    // MARK: - What the dashboard reads

    /// The ID asked for last and the sample's cached token, whatever ID that token is for.
    public var snapshot: (id: String?, token: FetchedToken?) {
        state.read { ($0.ledger.currentID, $0.authToken?.token) }
    }
    public var lastFailure: FleetAuthError? { state.lastFailure }
    public var isFetching: Bool { state.requestsInFlight > 0 }
    public var refusedToken: String? { state.refusedToken }
    /// Requests out now: with no single-flight, one per caller that missed.
    public var requestsInFlight: Int { state.requestsInFlight }

    public func publishCountedEvents() { state.publishCountedEvents() }
}
