import Foundation

/// Which SDK a provider serves. The two differ only in the ID they are keyed by,
/// the URL placeholder, and the claim that carries the ID inside the JWT.
public enum ProviderKind: String, Sendable, CaseIterable, Codable {
    /// Consumer SDK: trip tokens, keyed by trip ID.
    case consumer
    /// Driver SDK: vehicle tokens, keyed by vehicle ID.
    case driver

    /// The `authorization` claim member Fleet Engine reads.
    public var claimName: String { self == .consumer ? "tripid" : "vehicleid" }
    /// Placeholder in a URL template, and the query item name when there is none.
    public var idParameter: String { self == .consumer ? "tripId" : "vehicleId" }
    public var idNoun: String { self == .consumer ? "trip ID" : "vehicle ID" }
    /// What the SDKs call this kind's token.
    public var tokenNoun: String { self == .consumer ? "trip token" : "vehicle token" }
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
