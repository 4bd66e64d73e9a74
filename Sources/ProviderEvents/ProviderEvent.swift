import FleetEngineAPI
import Foundation
import ProviderVocabulary

/// Why a provider went to the backend.
public enum FetchReason: String, Sendable, Equatable {
    case noToken = "no token"
    case expired
    case refreshAhead = "refresh ahead"
    case forced
    case idChanged = "ID changed"
}

/// The one record of what a provider did. The dashboard and `watch` show only these.
public struct ProviderEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `count` calls served from the cache, the last at the event's `time`: hits are counted and
        /// published together (at most every `EventBroadcaster.hitFlushInterval`), not one event each.
        case cacheHit(count: Int = 1, expiresAt: Date)
        case fetchStarted(reason: FetchReason)
        case fetched(FetchedToken, latency: TimeInterval)
        case fetchFailed(FleetAuthError, latency: TimeInterval)
        case idChanged(from: String?, to: String)
        case cacheDropped(reason: String)
        case expired(at: Date)
        case forcedRefresh
        /// After a failure: no request before `until`, the `attempt`-th failure in a row.
        case backingOff(until: Date, attempt: Int)
        /// The SDK called Fleet Engine with its token, and this is the answer.
        case fleetEngineCall(FleetEngineAnswer)
        /// The customer's provider class broke the SDK's contract (`--driver-source`, `--consumer-source`).
        case breach(ContractBreach)
        /// A line the customer's provider class printed, redacted (at most a few a second).
        case printed(String)
        /// An HTTP request or https tunnel of the customer's class, through tokendash's loopback proxy.
        case backendRequest(BackendExchange)
    }

    public var time: Date
    public var provider: ProviderKind
    /// The trip or vehicle ID the event concerns.
    public var id: String
    public var kind: Kind
    /// A `fetch_failed` whose answer held a token the rules refused: that token's fingerprint. The
    /// tap sets it, because the app got the token all the same and it counts among the ID's tokens.
    public var refusedFingerprint: String?

    public init(time: Date, provider: ProviderKind, id: String, kind: Kind, refusedFingerprint: String? = nil) {
        self.time = time
        self.provider = provider
        self.id = id
        self.kind = kind
        self.refusedFingerprint = refusedFingerprint
    }

    /// An event's name as `watch` prints it, `watch --events` and scenario `until:` steps take
    /// it, and recordings store it: one name per kind.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable {
        case cacheHit = "cache_hit"
        case fetchStarted = "fetch_started"
        case fetched
        case fetchFailed = "fetch_failed"
        case idChanged = "id_changed"
        case cacheDropped = "cache_dropped"
        case expired
        case forcedRefresh = "forced_refresh"
        case backingOff = "backing_off"
        case fleetEngineCall = "fleet_engine_call"
        // The breaches of a provider class of the customer's own, one name per `ContractBreach.Kind`.
        case completionMissing = "completion_missing"
        case completionRepeated = "completion_repeated"
        case servedAfterExp = "served_after_exp"
        case dataRace = "data_race"
        case providerCrashed = "provider_crashed"
        case providerKilled = "provider_killed"
        case printed = "provider_output"
        case backendRequest = "backend_request"

        /// The breach kind this name is, nil for the other events.
        public var breach: ContractBreach.Kind? { ContractBreach.Kind(rawValue: rawValue) }
    }

    /// Every name, in the order the cases are declared; what `watch --events` accepts.
    public static var allNames: [String] { Name.allCases.map(\.rawValue) }

    public var eventName: Name {
        switch kind {
        case .cacheHit: .cacheHit
        case .fetchStarted: .fetchStarted
        case .fetched: .fetched
        case .fetchFailed: .fetchFailed
        case .idChanged: .idChanged
        case .cacheDropped: .cacheDropped
        case .expired: .expired
        case .forcedRefresh: .forcedRefresh
        case .backingOff: .backingOff
        case .fleetEngineCall: .fleetEngineCall
        case .breach(let breach):
            switch breach.kind {
            case .completionMissing: .completionMissing
            case .completionRepeated: .completionRepeated
            case .servedAfterExp: .servedAfterExp
            case .dataRace: .dataRace
            case .providerCrashed: .providerCrashed
            case .providerKilled: .providerKilled
            }
        case .printed: .printed
        case .backendRequest: .backendRequest
        }
    }

    /// The snake_case name `watch` prints.
    public var name: String { eventName.rawValue }
}
