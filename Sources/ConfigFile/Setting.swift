import FleetAuth

/// A setting a profile (or `defaults`) may hold. The raw value is the key in the file, the same
/// as the command-line flag that overrides it (`trip-id:` and `--trip-id`).
public enum Setting: String, CaseIterable, Sendable {
    case solution, consumerURL = "consumer-url", driverURL = "driver-url"
    case tokenKey = "token-key", expiryKey = "expiry-key", expiry, jwks, cacert, proxy, providerID = "provider-id"
    case tripID = "trip-id", vehicleID = "vehicle-id", trackingID = "tracking-id", deliveryVehicleID = "delivery-vehicle-id"
    case trips, vehicles, only, headers
    case refreshMargin = "refresh-margin", timeout, lifetime, updateInterval = "update-interval", theme
    case ramp
    case fleetEngine = "fleet-engine", fleetEngineInterval = "fleet-engine-interval", providerLogic = "provider-logic"

    /// What a value must be. Ranges are those the flags enforce.
    public enum Kind: Sendable {
        case text, url, file, keySet, headers
        case choice([String])
        /// Seconds: at least `minimum` (more than it when `exclusive`), at most 30 days (`InputBounds`).
        case seconds(minimum: Double, exclusive: Bool)
        case count(ClosedRange<Int>)
    }

    public var kind: Kind {
        switch self {
        case .solution: .choice(ProviderKind.Solution.allCases.map(\.rawValue))
        case .expiry: .choice(ExpiryMode.allCases.map(\.rawValue))
        case .only: .choice(ProviderKind.Role.allCases.map(\.rawValue))
        case .providerLogic: .choice(ProviderLogic.names)
        case .consumerURL, .driverURL, .proxy, .fleetEngine: .url
        case .cacert: .file
        case .jwks: .keySet
        case .headers: .headers
        case .refreshMargin: .seconds(minimum: 0, exclusive: false)
        case .timeout: .seconds(minimum: 0, exclusive: true)
        case .updateInterval: .seconds(minimum: 0.05, exclusive: false)
        case .ramp: .seconds(minimum: 0, exclusive: false)
        case .fleetEngineInterval: .seconds(minimum: 1, exclusive: false)
        case .lifetime: .count(1...3600)
        case .trips, .vehicles: .count(1...100_000)
        case .tokenKey, .expiryKey, .providerID, .tripID, .vehicleID, .trackingID, .deliveryVehicleID, .theme: .text
        }
    }

    /// `defaults:` holds how the dashboard behaves, not which backend it asks: that is a profile's.
    public var allowedInDefaults: Bool {
        switch self {
        case .theme, .updateInterval, .refreshMargin, .timeout, .lifetime, .trips, .vehicles, .ramp, .fleetEngineInterval, .providerLogic: true
        default: false
        }
    }
}
