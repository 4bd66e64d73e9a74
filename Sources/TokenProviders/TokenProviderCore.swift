import ProviderEvents
import ProviderVocabulary
import TokenJudging

/// What a simulated SDK drives: any token-provider core of one context type. tokendash's
/// `CachingTokenProvider` and the sample ports (`SwiftSampleTokenProvider`,
/// `ObjCSampleTokenProvider`) conform, so the fleet, the dashboard and `watch` treat them alike.
public protocol TokenProviderCore<Context>: Sendable {
    associatedtype Context: AuthorizationContext

    var kind: ProviderKind { get }
    /// Where the core publishes its `ProviderEvent`s.
    var events: EventBroadcaster { get }

    /// The token for the context's ID, as the SDK's `fetchToken(with:completion:)` would get it.
    /// Runs on the caller's executor so that a cache hit costs no hop. Throws `FleetAuthError`.
    nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String
    /// A new token for the current ID now (the dashboard's force-refresh key).
    @discardableResult
    func forceRefresh() async throws -> String
    /// The current ID and the cached token, read in one step.
    var snapshot: (id: String?, token: FetchedToken?) { get async }
    /// Why the last fetch failed, while none has succeeded since.
    var lastFailure: FleetAuthError? { get async }
    /// Whether a request to the backend is in flight.
    var isFetching: Bool { get async }
    /// The token text the last fetch brought and the rules refused, while none has succeeded since.
    var refusedToken: String? { get async }
    /// Publishes the cache hits counted since the last `.cacheHit` event.
    func publishCountedEvents()
}

// The conformance adds witnesses only: a direct call still inlines the concrete `fetchToken(for:)`.
extension CachingTokenProvider: TokenProviderCore {}
