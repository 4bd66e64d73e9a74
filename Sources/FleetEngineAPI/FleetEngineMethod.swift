import Foundation
import ProviderVocabulary

/// A Fleet Engine method a simulated SDK calls with the token its provider handed it, over Fleet
/// Engine's REST API (`https://fleetengine.googleapis.com/v1/...`). The routes and bodies follow
/// Google's REST references for `providers.vehicles`, `providers.trips`,
/// `providers.deliveryVehicles` and `providers.taskTrackingInfo`.
public enum FleetEngineMethod: String, Sendable, CaseIterable, Codable {
    case updateVehicle = "UpdateVehicle"
    case getVehicle = "GetVehicle"
    case getTrip = "GetTrip"
    case updateDeliveryVehicle = "UpdateDeliveryVehicle"
    case getDeliveryVehicle = "GetDeliveryVehicle"
    case getTaskTrackingInfo = "GetTaskTrackingInfo"

    /// The call `kind`'s SDK makes after a token call. The driver SDKs write their location;
    /// without `writes` (a real Fleet Engine the user has not allowed writes to) they read their
    /// vehicle instead, which needs the same token.
    public static func sdkCall(for kind: ProviderKind, writes: Bool) -> FleetEngineMethod {
        switch kind {
        case .consumer: .getTrip
        case .driver: writes ? .updateVehicle : .getVehicle
        case .deliveryConsumer: .getTaskTrackingInfo
        case .deliveryDriver: writes ? .updateDeliveryVehicle : .getDeliveryVehicle
        }
    }

    /// The kind whose resource the method names: a vehicle method's path holds a vehicle ID.
    public var resourceKind: ProviderKind {
        switch self {
        case .updateVehicle, .getVehicle: .driver
        case .getTrip: .consumer
        case .updateDeliveryVehicle, .getDeliveryVehicle: .deliveryDriver
        case .getTaskTrackingInfo: .deliveryConsumer
        }
    }

    /// The collection in the REST path: `providers/{provider}/{collection}/{id}`.
    public var collection: String {
        switch self {
        case .updateVehicle, .getVehicle: "vehicles"
        case .getTrip: "trips"
        case .updateDeliveryVehicle, .getDeliveryVehicle: "deliveryVehicles"
        case .getTaskTrackingInfo: "taskTrackingInfo"
        }
    }

    /// The HTTP verb: `UpdateVehicle` is a PUT, `UpdateDeliveryVehicle` a PATCH (as in the REST references).
    public var httpMethod: String {
        switch self {
        case .updateVehicle: "PUT"
        case .updateDeliveryVehicle: "PATCH"
        case .getVehicle, .getTrip, .getDeliveryVehicle, .getTaskTrackingInfo: "GET"
        }
    }

    public var isWrite: Bool { httpMethod != "GET" }

    /// The method a REST route names, or nil: what the emulator answers.
    public static func route(httpMethod: String, collection: String) -> FleetEngineMethod? {
        allCases.first { $0.httpMethod == httpMethod && $0.collection == collection }
    }

    /// `providers/PROJECT/vehicles/ID`: the resource name Fleet Engine's messages quote.
    public func resource(provider: String, id: String) -> String {
        "providers/\(Self.escaped(provider))/\(collection)/\(Self.escaped(id))"
    }

    /// The request as the SDK sends it: the token as a bearer credential, a location update's
    /// field mask in the query and the location in the body.
    public func request(
        base: URL, provider: String, id: String, token: String, location: FleetEngineLocation,
        timeout: TimeInterval
    ) -> TransportRequest? {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += "/v1/" + resource(provider: provider, id: id)
        if isWrite { text += "?updateMask=lastLocation" }
        guard let url = URL(string: text) else { return nil }
        return TransportRequest(
            method: httpMethod, url: url, headers: [HTTPHeader(name: "Authorization", value: "Bearer " + token)],
            body: isWrite ? location.body : nil, timeout: timeout)
    }

    /// A path segment as Fleet Engine's IDs allow it: they hold no `/`, but a user's project
    /// name is escaped all the same.
    private static func escaped(_ segment: String) -> String {
        // Fleet Engine's IDs are letters, digits and `._-` (`FleetEngineID`): nothing to escape,
        // and Foundation's escaping costs a bridge on Linux at every call.
        let plain = segment.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        if plain { return segment }
        return segment.addingPercentEncoding(
            withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }
}

/// Where a simulated driver is: the body of its location update.
public struct FleetEngineLocation: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Googleplex, where Google's samples put their first vehicle.
    public static let start = FleetEngineLocation(latitude: 37.4220, longitude: -122.0841)

    /// `{"lastLocation":{"location":{"latitude":…,"longitude":…}}}`: the `Vehicle` (or
    /// `DeliveryVehicle`) with only the field the update mask names.
    public var body: Data {
        Data("{\"lastLocation\":{\"location\":{\"latitude\":\(latitude),\"longitude\":\(longitude)}}}".utf8)
    }
}
