import ArgumentParser
import ProviderVocabulary
import Settings
import TokenReading

/// The backend asked and how its answers are read: its URLs (none: the embedded server), the
/// answer's keys, headers, the timeout, and the key set tokens are checked against. Each is read
/// through `BackendOptions` under the same name.
package struct BackendFlags: ParsableArguments {
    package init() {}

    @Option(name: .customLong(Setting.solution.rawValue), help: Setting.solution.argumentHelp)
    package var givenSolution: ProviderKind.Solution?

    @Option(name: .customLong(Setting.consumerURL.rawValue), help: Setting.consumerURL.argumentHelp)
    package var consumerURL: String?

    @Option(name: .customLong(Setting.driverURL.rawValue), help: Setting.driverURL.argumentHelp)
    package var driverURL: String?

    // Optional: unset, the response's shape is detected (each solution's sample backend included).
    @Option(name: .customLong(Setting.tokenKey.rawValue), help: Setting.tokenKey.argumentHelp)
    package var tokenKey: String?

    @Option(name: .customLong(Setting.expiryKey.rawValue), help: Setting.expiryKey.argumentHelp)
    package var expiryKey: String?

    @Option(name: .customLong(Setting.expiry.rawValue), help: Setting.expiry.argumentHelp)
    package var expiry: ExpiryMode?

    @Option(name: .customLong("header"), help: Setting.headers.argumentHelp)
    package var headers: [String] = []

    @Option(name: .customLong(Setting.timeout.rawValue), parsing: .unconditional, help: Setting.timeout.argumentHelp)
    package var givenTimeout: Double?

    @Option(name: .customLong(Setting.lifetime.rawValue), parsing: .unconditional, help: Setting.lifetime.argumentHelp)
    package var givenLifetime: Int?

    @Option(name: .customLong(Setting.jwks.rawValue), help: Setting.jwks.argumentHelp)
    package var jwks: String?

    @Option(name: .customLong(Setting.providerID.rawValue), help: Setting.providerID.argumentHelp)
    package var providerID: String?
}

/// The simulated SDKs: which IDs they start with, which provider logic they run, how often they ask.
package struct SDKFlags: ParsableArguments {
    package init() {}

    @Option(name: .customLong(Setting.tripID.rawValue), help: Setting.tripID.argumentHelp)
    package var givenTripID: String?

    @Option(name: .customLong(Setting.vehicleID.rawValue), help: Setting.vehicleID.argumentHelp)
    package var givenVehicleID: String?

    @Option(name: .customLong(Setting.trackingID.rawValue), help: Setting.trackingID.argumentHelp)
    package var givenTrackingID: String?

    @Option(name: .customLong(Setting.deliveryVehicleID.rawValue), help: Setting.deliveryVehicleID.argumentHelp)
    package var givenDeliveryVehicleID: String?

    @Option(
        name: .customLong(Setting.refreshMargin.rawValue), parsing: .unconditional,
        help: Setting.refreshMargin.argumentHelp)
    package var givenRefreshMargin: Double?

    @Option(
        name: .customLong(Setting.updateInterval.rawValue), parsing: .unconditional,
        help: Setting.updateInterval.argumentHelp)
    package var givenUpdateInterval: Double?

    @Option(name: .customLong(Setting.providerLogic.rawValue), help: Setting.providerLogic.argumentHelp)
    package var givenProviderLogic: ProviderLogic?

    @Option(name: .customLong(Setting.only.rawValue), help: Setting.only.argumentHelp)
    package var only: ProviderKind.Role?
}

/// The customer's own provider class, built from its source and run as the SDK runs it.
package struct SourceProviderFlags: ParsableArguments {
    package init() {}

    /// Repeated for a class with files of its own beside it (helpers, a header to build).
    @Option(name: .customLong(Setting.consumerSource.rawValue), help: Setting.consumerSource.argumentHelp)
    package var consumerSources: [String] = []

    @Option(name: .customLong(Setting.driverSource.rawValue), help: Setting.driverSource.argumentHelp)
    package var driverSources: [String] = []

    /// The flag's first file: a profile names one, which fills it when no flag was given.
    package var consumerSource: String? {
        get { consumerSources.first }
        set { consumerSources = newValue.map { [$0] } ?? [] }
    }
    package var driverSource: String? {
        get { driverSources.first }
        set { driverSources = newValue.map { [$0] } ?? [] }
    }

    @Option(
        name: .customLong("consumer-class"),
        help:
            "With --consumer-source: the class to run where several conform to GMTCAuthorization (or implement AuthTokenFactory)."
    )
    package var consumerClass: String?

    @Option(
        name: .customLong("driver-class"),
        help:
            "With --driver-source: the class to run where several conform to GMTDAuthorization (or implement AuthTokenFactory)."
    )
    package var driverClass: String?

    @Option(
        name: .customLong("swiftc"), help: "The Swift compiler that builds a source provider (default: swiftc on PATH)."
    )
    package var swiftc: String?

    @Flag(
        name: .customLong("no-sanitize"),
        help: "Build a source provider without ThreadSanitizer, and call it from one thread at a time.")
    package var noSanitize = false

    @Option(
        name: .customLong(Setting.completionTimeout.rawValue), parsing: .unconditional,
        help: Setting.completionTimeout.argumentHelp)
    package var givenCompletionTimeout: Double?
}

/// A fleet of simulated SDKs: how many, how fast they start, and which slice this machine runs.
package struct FleetFlags: ParsableArguments {
    package init() {}

    @Option(name: .customLong(Setting.trips.rawValue), parsing: .unconditional, help: Setting.trips.argumentHelp)
    package var givenTrips: Int?

    @Option(name: .customLong(Setting.vehicles.rawValue), parsing: .unconditional, help: Setting.vehicles.argumentHelp)
    package var givenVehicles: Int?

    @Option(name: .customLong(Setting.ramp.rawValue), parsing: .unconditional, help: Setting.ramp.argumentHelp)
    package var givenRamp: Double?

    @OptionGroup package var sharding: ShardOptions
}

/// Where the SDKs' Fleet Engine calls go, and how often.
package struct FleetEngineFlags: ParsableArguments {
    package init() {}

    @Option(name: .customLong(Setting.fleetEngine.rawValue), help: Setting.fleetEngine.argumentHelp)
    package var fleetEngineURL: String?

    @Flag(
        name: .customLong("fleet-engine-writes"),
        help:
            "Let the driver SDKs send their location updates (UpdateVehicle, UpdateDeliveryVehicle) to --fleet-engine.")
    package var fleetEngineWrites = false

    @OptionGroup package var log: FleetEngineLogFlag

    @Flag(
        name: .customLong("no-fleet-engine"),
        help: "Make no Fleet Engine calls: tokens are fetched and judged, never used.")
    package var noFleetEngine = false

    @Option(
        name: .customLong(Setting.fleetEngineInterval.rawValue), parsing: .unconditional,
        help: Setting.fleetEngineInterval.argumentHelp)
    package var givenFleetEngineInterval: Double?
}

/// `--fleet-engine-log`: the embedded emulator's calls as Fleet Engine's own logs (dashboard,
/// `watch`, `serve`).
package struct FleetEngineLogFlag: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong("fleet-engine-log"),
        help: ArgumentHelp(
            "Write the calls the embedded Fleet Engine emulator authenticates to FILE as Fleet Engine's own Cloud Logging entries (JSON lines), for tokendash logs.",
            valueName: "file"))
    package var path: String?
}
