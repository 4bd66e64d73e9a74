import Foundation
import ProviderVocabulary

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
    public var deliveryConsumer = KindStats()
    public var deliveryDriver = KindStats()
    /// Median and 99th percentile time to sign one token, over the most recent mints.
    public var mintLatencyP50Milliseconds: Double?
    public var mintLatencyP99Milliseconds: Double?
    /// Requests to paths that are not token routes (JWKS, stats, faults, health, unknown).
    public var otherRequests = 0

    public init() {}

    // The kinds under their raw values, as routes and `watch` name them.
    private enum CodingKeys: String, CodingKey {
        case consumer, driver
        case deliveryConsumer = "delivery_consumer"
        case deliveryDriver = "delivery_driver"
        case mintLatencyP50Milliseconds, mintLatencyP99Milliseconds, otherRequests
    }

    public subscript(kind: ProviderKind) -> KindStats {
        get {
            switch kind {
            case .consumer: consumer
            case .driver: driver
            case .deliveryConsumer: deliveryConsumer
            case .deliveryDriver: deliveryDriver
            }
        }
        set {
            switch kind {
            case .consumer: consumer = newValue
            case .driver: driver = newValue
            case .deliveryConsumer: deliveryConsumer = newValue
            case .deliveryDriver: deliveryDriver = newValue
            }
        }
    }

    private var all: [KindStats] { ProviderKind.allCases.map { self[$0] } }
    public var totalMinted: Int { all.reduce(0) { $0 + $1.minted } }
    public var totalErrors: Int { all.reduce(0) { $0 + $1.errors } }
}
