import Foundation
import ProviderEvents
import ProviderVocabulary
import TokenProviders

/// The customer's class that did not build (or whose file was refused): a provider whose every
/// call fails with the compiler's first error, so the dashboard's pane shows it where the token
/// would be, and the rest of the session runs on.
public actor UnbuiltSourceProvider<Context: AuthorizationContext>: TokenProviderCore {
    public nonisolated let kind: ProviderKind
    public nonisolated let events: EventBroadcaster
    private let error: FleetAuthError
    private var id: String?
    private var reported = false

    public init(problem: String, events: EventBroadcaster) {
        kind = Context.kind
        self.events = events
        error = .other(problem)
    }

    public nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String {
        try await fail(context?.id)
    }

    private func fail(_ asked: String?) throws -> String {
        if let asked { id = asked }
        // Said once: the pane keeps the last error, and a log of the same line every tick says nothing more.
        if !reported {
            reported = true
            events.publish(
                ProviderEvent(time: Date(), provider: kind, id: id ?? "", kind: .fetchFailed(error, latency: 0)))
        }
        throw error
    }

    public func forceRefresh() async throws -> String {
        reported = false
        return try fail(id)
    }
    public var snapshot: (id: String?, token: FetchedToken?) { (id, nil) }
    public var lastFailure: FleetAuthError? { error }
    public var isFetching: Bool { false }
    public var refusedToken: String? { nil }
    public nonisolated func publishCountedEvents() {}
}
