import FleetTables
import Foundation

/// Where a kind's members stand at one instant: counts by status, how many are inside their
/// refresh margin, and the soonest expiry of a valid token held.
public struct FleetStanding: Sendable, Equatable {
    /// Members by status; those without events count as `noToken`.
    public var states: [MemberStatus: Int]
    /// Members whose valid token is inside its refresh margin.
    public var inRefreshMargin: Int
    /// The earliest expiry among the valid tokens held (ok and stale members); nil when none holds one.
    public var soonestExpiry: Date?
    /// Members whose last Fleet Engine call was answered with anything but OK.
    public var fleetEngineFailing: Int

    public init(states: [MemberStatus: Int], inRefreshMargin: Int, soonestExpiry: Date?, fleetEngineFailing: Int = 0) {
        self.states = states
        self.inRefreshMargin = inRefreshMargin
        self.soonestExpiry = soonestExpiry
        self.fleetEngineFailing = fleetEngineFailing
    }
}
