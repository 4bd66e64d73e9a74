import FleetTables
import Foundation
import Pacing
import ProviderVocabulary

/// A group of simulated SDKs of any kind, seen without its context type: lets a session hold the
/// consumer-side and driver-side groups of either solution in the same two fields while each
/// group keeps its one generic `ChosenTokenProvider<Context>`.
public protocol SDKGroup: Actor {
    nonisolated var kind: ProviderKind { get }
    /// Whose provider logic the group's SDKs run; nil for a provider made elsewhere (the customer's class).
    nonisolated var logic: ProviderLogic? { get }
    var count: Int { get }
    func id(at index: Int) -> String
    func switchID(at index: Int, to id: String) async
    /// Forces SDK `index` to fetch a new token; a failure is in the event stream.
    func forceRefresh(at index: Int) async
    nonisolated func setPaused(_ paused: Bool)
    /// The location-update loop, first calls spread by `ramp` at the pace `pacer` allows, until cancelled.
    func run(interval: Double, callers: Int, ramp: FleetRamp, clock: any SleepingClock, pacer: Pacer?) async
    /// How many SDKs have made their first call.
    var started: Int { get }
    /// Member `index`'s ID and its provider's cached token, last failure and whether it is fetching.
    func member(at index: Int) async -> MemberSnapshot
    /// The index of the member whose current ID is `id`, if any.
    func index(of id: String) -> Int?
    /// The SDKs holding no token valid at `now`, with the last failure if there was one.
    func withoutValidToken(at now: Date) async -> [(kind: ProviderKind, id: String, lastError: String?)]
}

extension SimulatedSDKs: SDKGroup {
    public nonisolated var kind: ProviderKind { Context.kind }
    // Every SDK of a group runs the same logic, and a group has at least one.
    public nonisolated var logic: ProviderLogic? { providers[0].logic }

    public func member(at index: Int) async -> MemberSnapshot {
        // The ID first: the awaits below let a switch run in between, and its token is dropped then.
        let id = self.id(at: index)
        let provider = providers[index]
        let token = await provider.cachedToken
        let failure = await provider.lastFailure
        let fetching = await provider.isFetching
        // The cache keeps the token's text only; the pane reads its claims on every frame.
        return MemberSnapshot(id: id, token: token?.hydrated, lastError: failure?.description, fetching: fetching)
    }

    public func index(of id: String) -> Int? { (0..<count).first { self.id(at: $0) == id } }

    /// A forced refresh is a token call: the SDK then calls Fleet Engine at once with what it got
    /// (or with the token its provider refused), so a fault's effect shows without waiting.
    public func forceRefresh(at index: Int) async {
        guard providers.indices.contains(index) else { return }
        let provider = providers[index]
        // Its own Fleet Engine call goes with what it brings, whatever the schedule: an update's
        // call meanwhile cannot take its place.
        await Self.reported(index: index, provider: provider, id: id(at: index), fleetEngine: fleetEngine, forced: true)
        {
            try await provider.forceRefresh()
        }
    }
}
