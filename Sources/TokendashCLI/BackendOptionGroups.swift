import ArgumentParser
import ProviderVocabulary
import Settings
import TokenReading

/// The backend asked and how its answers are read: its URLs (none: the embedded server), the
/// answer's keys, headers, the timeout, and the key set tokens are checked against. Each is read
/// through `BackendOptions` under the same name.
struct BackendFlags: ParsableArguments {
    @Option(name: .customLong(Setting.solution.rawValue), help: Setting.solution.argumentHelp)
    var givenSolution: ProviderKind.Solution?

    @Option(name: .customLong(Setting.consumerURL.rawValue), help: Setting.consumerURL.argumentHelp)
    var consumerURL: String?

    @Option(name: .customLong(Setting.driverURL.rawValue), help: Setting.driverURL.argumentHelp)
    var driverURL: String?

    // Optional: unset, the response's shape is detected (each solution's sample backend included).
    @Option(name: .customLong(Setting.tokenKey.rawValue), help: Setting.tokenKey.argumentHelp)
    var tokenKey: String?

    @Option(name: .customLong(Setting.expiryKey.rawValue), help: Setting.expiryKey.argumentHelp)
    var expiryKey: String?

    @Option(name: .customLong(Setting.expiry.rawValue), help: Setting.expiry.argumentHelp)
    var expiry: ExpiryMode?

    @Option(name: .customLong("header"), help: Setting.headers.argumentHelp)
    var headers: [String] = []

    @Option(name: .customLong(Setting.timeout.rawValue), parsing: .unconditional, help: Setting.timeout.argumentHelp)
    var givenTimeout: Double?

    @Option(name: .customLong(Setting.lifetime.rawValue), parsing: .unconditional, help: Setting.lifetime.argumentHelp)
    var givenLifetime: Int?

    @Option(name: .customLong(Setting.jwks.rawValue), help: Setting.jwks.argumentHelp)
    var jwks: String?

    @Option(name: .customLong(Setting.providerID.rawValue), help: Setting.providerID.argumentHelp)
    var providerID: String?
}

/// The simulated SDKs: which IDs they start with, which provider logic they run, how often they ask.
struct SDKFlags: ParsableArguments {
    @Option(name: .customLong(Setting.tripID.rawValue), help: Setting.tripID.argumentHelp)
    var givenTripID: String?

    @Option(name: .customLong(Setting.vehicleID.rawValue), help: Setting.vehicleID.argumentHelp)
    var givenVehicleID: String?

    @Option(name: .customLong(Setting.trackingID.rawValue), help: Setting.trackingID.argumentHelp)
    var givenTrackingID: String?

    @Option(name: .customLong(Setting.deliveryVehicleID.rawValue), help: Setting.deliveryVehicleID.argumentHelp)
    var givenDeliveryVehicleID: String?

    @Option(
        name: .customLong(Setting.refreshMargin.rawValue), parsing: .unconditional,
        help: Setting.refreshMargin.argumentHelp)
    var givenRefreshMargin: Double?

    @Option(
        name: .customLong(Setting.updateInterval.rawValue), parsing: .unconditional,
        help: Setting.updateInterval.argumentHelp)
    var givenUpdateInterval: Double?

    @Option(name: .customLong(Setting.providerLogic.rawValue), help: Setting.providerLogic.argumentHelp)
    var givenProviderLogic: ProviderLogic?

    @Option(name: .customLong(Setting.only.rawValue), help: Setting.only.argumentHelp)
    var only: ProviderKind.Role?
}

/// The customer's own provider class, built from its source and run as the SDK runs it.
struct SourceProviderFlags: ParsableArguments {
    /// Repeated for a class with files of its own beside it (helpers, a header to build).
    @Option(name: .customLong(Setting.consumerSource.rawValue), help: Setting.consumerSource.argumentHelp)
    var consumerSources: [String] = []

    @Option(name: .customLong(Setting.driverSource.rawValue), help: Setting.driverSource.argumentHelp)
    var driverSources: [String] = []

    /// The flag's first file: a profile names one, which fills it when no flag was given.
    var consumerSource: String? {
        get { consumerSources.first }
        set { consumerSources = newValue.map { [$0] } ?? [] }
    }
    var driverSource: String? {
        get { driverSources.first }
        set { driverSources = newValue.map { [$0] } ?? [] }
    }

    @Option(
        name: .customLong("consumer-class"),
        help:
            "With --consumer-source: the class to run where several conform to GMTCAuthorization (or implement AuthTokenFactory)."
    )
    var consumerClass: String?

    @Option(
        name: .customLong("driver-class"),
        help:
            "With --driver-source: the class to run where several conform to GMTDAuthorization (or implement AuthTokenFactory)."
    )
    var driverClass: String?

    @Option(
        name: .customLong("swiftc"), help: "The Swift compiler that builds a source provider (default: swiftc on PATH)."
    )
    var swiftc: String?

    @Flag(
        name: .customLong("no-sanitize"),
        help: "Build a source provider without ThreadSanitizer, and call it from one thread at a time.")
    var noSanitize = false

    @Option(
        name: .customLong(Setting.completionTimeout.rawValue), parsing: .unconditional,
        help: Setting.completionTimeout.argumentHelp)
    var givenCompletionTimeout: Double?
}

/// A fleet of simulated SDKs: how many, how fast they start, and which slice this machine runs.
struct FleetFlags: ParsableArguments {
    @Option(name: .customLong(Setting.trips.rawValue), parsing: .unconditional, help: Setting.trips.argumentHelp)
    var givenTrips: Int?

    @Option(name: .customLong(Setting.vehicles.rawValue), parsing: .unconditional, help: Setting.vehicles.argumentHelp)
    var givenVehicles: Int?

    @Option(name: .customLong(Setting.ramp.rawValue), parsing: .unconditional, help: Setting.ramp.argumentHelp)
    var givenRamp: Double?

    @OptionGroup var sharding: ShardOptions
}

/// Where the SDKs' Fleet Engine calls go, and how often.
struct FleetEngineFlags: ParsableArguments {
    @Option(name: .customLong(Setting.fleetEngine.rawValue), help: Setting.fleetEngine.argumentHelp)
    var fleetEngineURL: String?

    @Flag(
        name: .customLong("fleet-engine-writes"),
        help:
            "Let the driver SDKs send their location updates (UpdateVehicle, UpdateDeliveryVehicle) to --fleet-engine.")
    var fleetEngineWrites = false

    @OptionGroup var log: FleetEngineLogFlag

    @Flag(
        name: .customLong("no-fleet-engine"),
        help: "Make no Fleet Engine calls: tokens are fetched and judged, never used.")
    var noFleetEngine = false

    @Option(
        name: .customLong(Setting.fleetEngineInterval.rawValue), parsing: .unconditional,
        help: Setting.fleetEngineInterval.argumentHelp)
    var givenFleetEngineInterval: Double?
}

/// `--fleet-engine-log`: the embedded emulator's calls as Fleet Engine's own logs (dashboard,
/// `watch`, `serve`).
struct FleetEngineLogFlag: ParsableArguments {
    @Option(
        name: .customLong("fleet-engine-log"),
        help: ArgumentHelp(
            "Write the calls the embedded Fleet Engine emulator authenticates to FILE as Fleet Engine's own Cloud Logging entries (JSON lines), for tokendash logs.",
            valueName: "file"))
    var path: String?
}
