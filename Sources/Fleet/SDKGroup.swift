import FleetAuth
import Foundation

/// A group of simulated SDKs of any kind, seen without its context type: lets a session hold the
/// consumer-side and driver-side groups of either solution in the same two fields while each
/// group keeps its one generic `CachingTokenProvider<Context>`.
public protocol SDKGroup: Actor {
    nonisolated var kind: ProviderKind { get }
    var count: Int { get }
    func id(at index: Int) -> String
    func switchID(at index: Int, to id: String) async
    /// Forces SDK `index` to fetch a new token; a failure is in the event stream.
    func forceRefresh(at index: Int) async
    nonisolated func setPaused(_ paused: Bool)
    func run(interval: Double, callers: Int) async
    /// The SDKs holding no token valid at `now`, with the last failure if there was one.
    func withoutValidToken(at now: Date) async -> [(kind: ProviderKind, id: String, lastError: String?)]
}

extension SimulatedSDKs: SDKGroup {
    public nonisolated var kind: ProviderKind { Context.kind }

    public func forceRefresh(at index: Int) async {
        guard providers.indices.contains(index) else { return }
        _ = try? await providers[index].forceRefresh()
    }
}
