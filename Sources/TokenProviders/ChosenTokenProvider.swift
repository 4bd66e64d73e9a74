import Foundation
import ProviderEvents
import ProviderVocabulary
import TokenJudging

/// One simulated SDK's provider, of whichever `ProviderLogic` was chosen. An enum rather than
/// `any TokenProviderCore<Context>`, so that on tokendash's logic a call is one branch and then
/// `CachingTokenProvider`'s own inlined cache hit, with no existential dispatch and no hop; and
/// it is one reference wide, as an array of `CachingTokenProvider`s was.
public enum ChosenTokenProvider<Context: AuthorizationContext>: TokenProviderCore, Sendable {
    case tokendash(CachingTokenProvider<Context>)
    case swiftSample(SwiftSampleTokenProvider<Context>)
    case objcSample(ObjCSampleTokenProvider<Context>)
    /// A provider made elsewhere: the customer's own class in its host (`ProviderHost`), whose
    /// calls cross a pipe, so the existential's dispatch costs nothing beside them.
    case external(any TokenProviderCore<Context>)

    /// A provider of `logic`'s kind. The samples have no refresh margin and check no signature,
    /// so `refreshMargin` and `verifier` go to tokendash's core only.
    public init(
        _ logic: ProviderLogic, endpoint: TokenEndpoint, transport: any TokenTransport, refreshMargin: TimeInterval,
        clock: any ProviderClock = SystemClock(), events: EventBroadcaster = EventBroadcaster(),
        verifier: (any SignatureVerifier)? = nil
    ) {
        switch logic {
        case .tokendash:
            self = .tokendash(
                CachingTokenProvider(
                    endpoint: endpoint, transport: transport, refreshMargin: refreshMargin,
                    clock: clock, events: events, verifier: verifier))
        case .swiftSample:
            self = .swiftSample(
                SwiftSampleTokenProvider(endpoint: endpoint, transport: transport, clock: clock, events: events))
        case .objcSample:
            self = .objcSample(
                ObjCSampleTokenProvider(endpoint: endpoint, transport: transport, clock: clock, events: events))
        }
    }

    /// The logic chosen with `--provider-logic`; an external provider is none of them, and is named by its source.
    public var logic: ProviderLogic? {
        switch self {
        case .tokendash: .tokendash
        case .swiftSample: .swiftSample
        case .objcSample: .objcSample
        case .external: nil
        }
    }

    /// Whether callers asking at once share one backend request (tokendash's single-flight); the
    /// samples and the customer's class may send one per caller.
    public var sharesFetches: Bool {
        if case .tokendash = self { return true }
        return false
    }

    /// The provider as the protocol sees it, for code that needs no speed.
    public var core: any TokenProviderCore<Context> {
        switch self {
        case .tokendash(let p): p
        case .swiftSample(let p): p
        case .objcSample(let p): p
        case .external(let p): p
        }
    }

    /// tokendash's core, when that is the logic (its `waitingCallers`, `currentIdentifier`…).
    public var caching: CachingTokenProvider<Context>? {
        if case .tokendash(let p) = self { return p }
        return nil
    }

    public var kind: ProviderKind { Context.kind }
    public var events: EventBroadcaster { core.events }

    @inlinable
    public nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String {
        switch self {
        case .tokendash(let p): try await p.fetchToken(for: context)
        case .swiftSample(let p): try await p.fetchToken(for: context)
        case .objcSample(let p): try await p.fetchToken(for: context)
        case .external(let p): try await p.fetchToken(for: context)
        }
    }

    @discardableResult
    public func forceRefresh() async throws -> String { try await core.forceRefresh() }
    public var snapshot: (id: String?, token: FetchedToken?) { get async { await core.snapshot } }
    /// The cached token, valid or not; for display.
    public var cachedToken: FetchedToken? { get async { await snapshot.token } }
    public var lastFailure: FleetAuthError? { get async { await core.lastFailure } }
    public var isFetching: Bool { get async { await core.isFetching } }
    public var refusedToken: String? { get async { await core.refusedToken } }
    public func publishCountedEvents() { core.publishCountedEvents() }
}
