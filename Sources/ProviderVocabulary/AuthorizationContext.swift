import Foundation
import JSONValues

/// Which SDK a provider serves. The kinds differ only in data (the ID they are keyed by, the URL
/// placeholder, the claim that carries the ID inside the JWT, the sample backend's route), so one
/// generic provider serves them all; `spec` is the one place that data is written down.
public enum ProviderKind: String, Sendable, CaseIterable, Codable {
    /// On-demand Consumer SDK: trip tokens, keyed by trip ID.
    case consumer
    /// On-demand Driver SDK: vehicle tokens, keyed by vehicle ID.
    case driver
    /// Last-mile Consumer SDK (shipment tracking): tokens keyed by tracking ID.
    case deliveryConsumer = "delivery_consumer"
    /// Last-mile Driver SDK: delivery vehicle tokens, keyed by delivery vehicle ID.
    case deliveryDriver = "delivery_driver"

    /// Which side of a solution a kind is on: the dashboard's left (consumer) or right (driver) pane.
    public enum Role: String, Sendable, Hashable, CaseIterable { case consumer, driver }

    /// Fleet Engine's two solutions, each a consumer-side and a driver-side kind.
    public enum Solution: String, Sendable, Hashable, CaseIterable, Codable {
        case onDemand = "on-demand"
        case lastMile = "last-mile"

        public var consumerKind: ProviderKind { self == .onDemand ? .consumer : .deliveryConsumer }
        public var driverKind: ProviderKind { self == .onDemand ? .driver : .deliveryDriver }
        public var kinds: [ProviderKind] { [consumerKind, driverKind] }
        public func kind(_ role: Role) -> ProviderKind { role == .consumer ? consumerKind : driverKind }
    }

    /// Everything that tells one kind from another.
    public struct Spec: Sendable, Equatable {
        /// The `authorization` claim member a token of this kind is minted with.
        public var claimName: String
        /// Every member that may carry the ID (a delivery consumer token may name a task instead).
        public var acceptedClaimNames: [String]
        /// Placeholder in a URL template (without braces), and the query item name when there is none.
        public var idParameter: String
        public var idNoun: String
        /// What the SDKs call this kind's token.
        public var tokenNoun: String
        /// The route of Google's sample backend, with the placeholder.
        public var defaultRoutePath: String
        public var role: Role
        public var solution: Solution
        /// The dashboard's names: the pane's title, the ID's label beside it (at most 11
        /// columns; the title already says "delivery"), and the members in the plural.
        public var paneTitle: String
        public var idLabel: String
        public var fleetNoun: String
    }

    public var spec: Spec {
        switch self {
        case .consumer:
            Spec(
                claimName: "tripid", acceptedClaimNames: ["tripid"], idParameter: "tripId", idNoun: "trip ID",
                tokenNoun: "trip token", defaultRoutePath: "/token/consumer/{tripId}", role: .consumer,
                solution: .onDemand,
                paneTitle: "Consumer (trip token)", idLabel: "Trip ID", fleetNoun: "trips")
        case .driver:
            Spec(
                claimName: "vehicleid", acceptedClaimNames: ["vehicleid"], idParameter: "vehicleId",
                idNoun: "vehicle ID",
                tokenNoun: "vehicle token", defaultRoutePath: "/token/driver/{vehicleId}", role: .driver,
                solution: .onDemand,
                paneTitle: "Driver (vehicle token)", idLabel: "Vehicle ID", fleetNoun: "vehicles")
        case .deliveryConsumer:
            // Google's last-mile consumer tokens name a tracking ID; a task ID (or several) also
            // authorises reading that shipment.
            Spec(
                claimName: "trackingid", acceptedClaimNames: ["trackingid", "taskid", "taskids"],
                idParameter: "trackingId",
                idNoun: "tracking ID", tokenNoun: "tracking token",
                defaultRoutePath: "/token/delivery_consumer/{trackingId}",
                role: .consumer, solution: .lastMile,
                paneTitle: "Delivery consumer (tracking token)", idLabel: "Tracking", fleetNoun: "shipments")
        case .deliveryDriver:
            Spec(
                claimName: "deliveryvehicleid", acceptedClaimNames: ["deliveryvehicleid"],
                idParameter: "deliveryVehicleId",
                idNoun: "delivery vehicle ID", tokenNoun: "delivery vehicle token",
                defaultRoutePath: "/token/delivery_driver/{deliveryVehicleId}", role: .driver, solution: .lastMile,
                paneTitle: "Delivery driver (delivery vehicle token)", idLabel: "Vehicle ID", fleetNoun: "delivery vans"
            )
        }
    }

    /// The `authorization` claim member Fleet Engine reads.
    public var claimName: String { spec.claimName }
    public var acceptedClaimNames: [String] { spec.acceptedClaimNames }
    /// Placeholder in a URL template, and the query item name when there is none.
    public var idParameter: String { spec.idParameter }
    public var idNoun: String { spec.idNoun }
    /// What the SDKs call this kind's token.
    public var tokenNoun: String { spec.tokenNoun }
    public var defaultRoutePath: String { spec.defaultRoutePath }
    public var role: Role { spec.role }
    public var solution: Solution { spec.solution }
    /// A delivery kind: Google's last-mile sample backend answers in its own shape.
    public var isDelivery: Bool { solution == .lastMile }

    /// The kind a token's `authorization` claim says it is, for judging a token on its own
    /// (`decode`): a kind's own claim first, so java-fleetengine-auth's trusted delivery driver
    /// token (a delivery vehicle and a task) is a delivery vehicle token; then any claim a kind
    /// accepts (a task ID alone is a delivery consumer's). Nil when no claim names a kind.
    public static func named(by authorization: JSONValue?) -> ProviderKind? {
        allCases.first { authorization?[$0.claimName] != nil }
            ?? allCases.first { kind in kind.acceptedClaimNames.contains { authorization?[$0] != nil } }
    }
}

/// The Linux counterpart of the SDKs' authorization contexts.
public protocol AuthorizationContext: Sendable {
    static var kind: ProviderKind { get }
    /// The ID the token must be minted for; nil or empty means the SDK gave none.
    var id: String? { get }
    init(id: String?)
}

/// Like `GMTCAuthorizationContext`: the Consumer SDK's request for a trip token.
public struct TripAuthorizationContext: AuthorizationContext, Hashable {
    public static let kind = ProviderKind.consumer
    public var tripID: String?
    public var id: String? { tripID }
    public init(tripID: String?) { self.tripID = tripID }
    public init(id: String?) { self.init(tripID: id) }
}

/// Like `GMTDAuthorizationContext`: the Driver SDK's request for a vehicle token.
public struct VehicleAuthorizationContext: AuthorizationContext, Hashable {
    public static let kind = ProviderKind.driver
    public var vehicleID: String?
    public var id: String? { vehicleID }
    public init(vehicleID: String?) { self.vehicleID = vehicleID }
    public init(id: String?) { self.init(vehicleID: id) }
}

/// The last-mile Consumer SDK's request: a token to follow one shipment, keyed by tracking ID.
public struct DeliveryConsumerAuthorizationContext: AuthorizationContext, Hashable {
    public static let kind = ProviderKind.deliveryConsumer
    public var trackingID: String?
    public var id: String? { trackingID }
    public init(trackingID: String?) { self.trackingID = trackingID }
    public init(id: String?) { self.init(trackingID: id) }
}

/// The last-mile Driver SDK's request: a token for one delivery vehicle.
public struct DeliveryDriverAuthorizationContext: AuthorizationContext, Hashable {
    public static let kind = ProviderKind.deliveryDriver
    public var deliveryVehicleID: String?
    public var id: String? { deliveryVehicleID }
    public init(deliveryVehicleID: String?) { self.deliveryVehicleID = deliveryVehicleID }
    public init(id: String?) { self.init(deliveryVehicleID: id) }
}
