/// A setting a user gives tokendash by flag and, for most, by config file. The raw value is the
/// flag's long name; a setting a config file may hold has the same key there (`--trip-id` and
/// `trip-id:`). Its kind, range, default and help are its one entry in the table (`entry`), which
/// the flags, the config reader, scenarios, recordings and docs/limits.md all read.
public enum Setting: String, CaseIterable, Sendable {
    case solution
    case consumerURL = "consumer-url"
    case driverURL = "driver-url"
    case tokenKey = "token-key"
    case expiryKey = "expiry-key"
    case expiry, jwks, cacert, proxy
    case providerID = "provider-id"
    case tripID = "trip-id"
    case vehicleID = "vehicle-id"
    case trackingID = "tracking-id"
    case deliveryVehicleID = "delivery-vehicle-id"
    case trips, vehicles, only, headers
    case refreshMargin = "refresh-margin"
    case timeout, lifetime
    case updateInterval = "update-interval"
    case theme
    case ramp
    case fleetEngine = "fleet-engine"
    case fleetEngineInterval = "fleet-engine-interval"
    case providerLogic = "provider-logic"
    case consumerSource = "consumer-source"
    case driverSource = "driver-source"
    case completionTimeout = "completion-timeout"
    /// `watch`'s own; no config key.
    case duration, callers
    /// A cast's own (`replay --to-cast`, `--cast`); no config key.
    case idleTimeLimit = "idle-time-limit"
    /// `tap`'s own; no config key.
    case churnLimit = "churn-limit"
    case upstreamKeepalive = "upstream-keepalive"

    /// The flag, `--` included. `--header` is given once a header, `headers:` holds them all.
    public var flag: String { self == .headers ? "--header" : "--" + rawValue }
    public var kind: SettingEntry.Kind { entry.kind }

    /// The settings a config file may hold, in the table's order.
    public static var inConfigFile: [Setting] { allCases.filter { $0.entry.file != .none } }

    /// `defaults:` holds how the dashboard behaves, not which backend it asks: that is a profile's.
    public var allowedInDefaults: Bool { entry.file == .profileOrDefaults }
}
