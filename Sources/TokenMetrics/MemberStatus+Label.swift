import Fleet
import FleetTables

extension MemberStatus {
    /// The `state` label of `tokendash_providers`.
    var label: String {
        switch self {
        case .failing: "failing"
        case .backingOff: "backing_off"
        case .expired: "expired"
        case .noToken: "no_token"
        case .stale: "stale"
        case .ok: "ok"
        }
    }
}
