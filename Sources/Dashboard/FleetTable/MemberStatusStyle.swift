import Fleet
import FleetTables
import UICore

/// A member's status as the fleet table and rows show it: PaneStatus's words where they mean the same.
extension MemberStatus {
    public var label: String {
        switch self {
        case .failing: PaneStatus.failing.label
        case .backingOff: "backing off"
        case .expired: PaneStatus.expired.label
        case .noToken: "no token"
        case .stale: PaneStatus.stale.label
        case .ok: PaneStatus.ok.label
        }
    }

    public var role: StyleRole {
        switch self {
        case .failing, .expired: .error
        case .backingOff, .stale: .warning
        case .noToken: .dim
        case .ok: .ok
        }
    }
}
