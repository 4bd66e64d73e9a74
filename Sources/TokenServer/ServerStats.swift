import FleetAuth
import Foundation

/// What the server has done since it started; a snapshot, safe to hand to any task.
public struct ServerStats: Sendable, Equatable, Codable {
    public struct KindStats: Sendable, Equatable, Codable {
        /// Token requests received, whatever their outcome.
        public var requests = 0
        /// Tokens signed, including deliberately wrong or expired ones.
        public var minted = 0
        /// Requests answered with anything but a good token: bad IDs, signing failures, injected faults.
        public var errors = 0
        /// Requests a fault was applied to.
        public var faulted = 0
        public init() {}
    }

    public var consumer = KindStats()
    public var driver = KindStats()
    /// Median and 99th percentile time to sign one token, over the most recent mints.
    public var mintLatencyP50Milliseconds: Double?
    public var mintLatencyP99Milliseconds: Double?
    /// Requests to paths that are not token routes (JWKS, stats, faults, health, unknown).
    public var otherRequests = 0

    public init() {}

    public subscript(kind: ProviderKind) -> KindStats {
        get { kind == .consumer ? consumer : driver }
        set { if kind == .consumer { consumer = newValue } else { driver = newValue } }
    }

    public var totalMinted: Int { consumer.minted + driver.minted }
    public var totalErrors: Int { consumer.errors + driver.errors }
}
