import ArgumentParser
import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import Settings
import TokenSignatures

/// The flags shared by the dashboard and `watch`: which backend to ask, and how to read its answers.
/// Flags a config file can also set are optional (`given…`), so a flag left out can take the
/// profile's value (`filled(from:)`); the plain names read the value in effect, built-in default
/// included.
struct BackendOptions: ParsableArguments {
    @Option(name: .customLong(Setting.solution.rawValue), help: Setting.solution.argumentHelp)
    var givenSolution: ProviderKind.Solution?
    var solution: ProviderKind.Solution { givenSolution ?? Setting.solution.builtIn() }

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

    @Option(name: .customLong(Setting.jwks.rawValue), help: Setting.jwks.argumentHelp)
    var jwks: String?

    @Option(name: .customLong(Setting.providerID.rawValue), help: Setting.providerID.argumentHelp)
    var providerID: String?

    @Option(name: .customLong(Setting.fleetEngine.rawValue), help: Setting.fleetEngine.argumentHelp)
    var fleetEngineURL: String?

    @Flag(
        name: .customLong("fleet-engine-writes"),
        help:
            "Let the driver SDKs send their location updates (UpdateVehicle, UpdateDeliveryVehicle) to --fleet-engine.")
    var fleetEngineWrites = false

    @Flag(
        name: .customLong("no-fleet-engine"),
        help: "Make no Fleet Engine calls: tokens are fetched and judged, never used.")
    var noFleetEngine = false

    @Option(
        name: .customLong(Setting.fleetEngineInterval.rawValue), parsing: .unconditional,
        help: Setting.fleetEngineInterval.argumentHelp)
    var givenFleetEngineInterval: Double?
    var fleetEngineInterval: Double { givenFleetEngineInterval ?? Setting.fleetEngineInterval.builtIn() }

    @Option(name: .customLong(Setting.providerLogic.rawValue), help: Setting.providerLogic.argumentHelp)
    var givenProviderLogic: ProviderLogic?
    var providerLogic: ProviderLogic { givenProviderLogic ?? Setting.providerLogic.builtIn() }

    @Option(name: .customLong(Setting.consumerSource.rawValue), help: Setting.consumerSource.argumentHelp)
    var consumerSource: String?

    @Option(name: .customLong(Setting.driverSource.rawValue), help: Setting.driverSource.argumentHelp)
    var driverSource: String?

    @Option(
        name: .customLong("consumer-class"),
        help: "With --consumer-source: the class to run where several conform to GMTCAuthorization.")
    var consumerClass: String?

    @Option(
        name: .customLong("driver-class"),
        help: "With --driver-source: the class to run where several conform to GMTDAuthorization.")
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
    var completionTimeout: Double { givenCompletionTimeout ?? Setting.completionTimeout.builtIn() }

    /// The sides whose provider is the customer's own source file.
    func source(_ role: ProviderKind.Role) -> (path: String, className: String?)? {
        switch role {
        case .consumer: consumerSource.map { ($0, consumerClass) }
        case .driver: driverSource.map { ($0, driverClass) }
        }
    }

    @Option(name: .customLong(Setting.tripID.rawValue), help: Setting.tripID.argumentHelp)
    var givenTripID: String?
    var tripID: String { givenTripID ?? Setting.tripID.builtIn() }

    @Option(name: .customLong(Setting.vehicleID.rawValue), help: Setting.vehicleID.argumentHelp)
    var givenVehicleID: String?
    var vehicleID: String { givenVehicleID ?? Setting.vehicleID.builtIn() }

    @Option(name: .customLong(Setting.trackingID.rawValue), help: Setting.trackingID.argumentHelp)
    var givenTrackingID: String?
    var trackingID: String { givenTrackingID ?? Setting.trackingID.builtIn() }

    @Option(name: .customLong(Setting.deliveryVehicleID.rawValue), help: Setting.deliveryVehicleID.argumentHelp)
    var givenDeliveryVehicleID: String?
    var deliveryVehicleID: String { givenDeliveryVehicleID ?? Setting.deliveryVehicleID.builtIn() }

    @Option(
        name: .customLong(Setting.refreshMargin.rawValue), parsing: .unconditional,
        help: Setting.refreshMargin.argumentHelp)
    var givenRefreshMargin: Double?
    var refreshMargin: Double { givenRefreshMargin ?? Setting.refreshMargin.builtIn() }

    @Option(name: .customLong("header"), help: Setting.headers.argumentHelp)
    var headers: [String] = []

    @Option(name: .customLong(Setting.cacert.rawValue), help: Setting.cacert.argumentHelp)
    var caCertificates: String?

    @Flag(
        name: .customLong("insecure"),
        help:
            "Do not verify the backend's TLS certificate. Shown in red in the header; watch adds \"insecure\":true to every line."
    )
    var insecure = false

    @Option(name: .customLong(Setting.proxy.rawValue), help: Setting.proxy.argumentHelp)
    var proxy: String?

    @Flag(
        name: .customLong("proxy-tunnel"),
        help:
            "Ask the proxy for a CONNECT tunnel for http backends too, as curl --proxytunnel (by default an http request goes to the proxy in absolute form)."
    )
    var proxyTunnel = false

    @Flag(name: .customLong("no-proxy"), help: "Ask every backend directly, whatever the proxy variables say.")
    var noProxy = false

    @Option(name: .customLong(Setting.timeout.rawValue), parsing: .unconditional, help: Setting.timeout.argumentHelp)
    var givenTimeout: Double?
    var timeout: Double { givenTimeout ?? Setting.timeout.builtIn() }

    @Option(name: .customLong(Setting.lifetime.rawValue), parsing: .unconditional, help: Setting.lifetime.argumentHelp)
    var givenLifetime: Int?
    var lifetime: Int { givenLifetime ?? Setting.lifetime.builtIn() }

    @Option(
        name: .customLong(Setting.updateInterval.rawValue), parsing: .unconditional,
        help: Setting.updateInterval.argumentHelp)
    var givenUpdateInterval: Double?
    var updateInterval: Double { givenUpdateInterval ?? Setting.updateInterval.builtIn() }

    @Option(name: .customLong(Setting.trips.rawValue), parsing: .unconditional, help: Setting.trips.argumentHelp)
    var givenTrips: Int?
    var trips: Int { givenTrips ?? Setting.trips.builtIn() }

    @Option(name: .customLong(Setting.vehicles.rawValue), parsing: .unconditional, help: Setting.vehicles.argumentHelp)
    var givenVehicles: Int?
    var vehicles: Int { givenVehicles ?? Setting.vehicles.builtIn() }

    @Option(name: .customLong(Setting.ramp.rawValue), parsing: .unconditional, help: Setting.ramp.argumentHelp)
    var givenRamp: Double?
    /// The ramp in effect: the flag's, else 1,000 new SDKs a second over the SDKs this instance runs.
    var ramp: FleetRamp { givenRamp.map(FleetRamp.init(duration:)) ?? .atDefaultRate(total: runningSDKs) }

    /// The SDKs this instance runs: its shard's slice of each side `--only` leaves.
    var runningSDKs: Int {
        roles.reduce(0) { sum, role in
            let count = role == .consumer ? trips : vehicles
            return sum + (count == 1 ? 1 : sharding.shard.range(of: count).count)
        }
    }

    @Option(name: .customLong(Setting.only.rawValue), help: Setting.only.argumentHelp)
    var only: ProviderKind.Role?

    @OptionGroup var sharding: ShardOptions

    var usesEmbeddedServer: Bool { consumerURL == nil && driverURL == nil }

    /// The sides that run: both, or the one `--only` names.
    var roles: [ProviderKind.Role] { only.map { [$0] } ?? ProviderKind.Role.allCases }

    func validate() throws {
        switch only {
        case .consumer?:
            if driverURL != nil { throw ValidationError("--only consumer runs no driver: drop --driver-url") }
        case .driver?:
            if consumerURL != nil { throw ValidationError("--only driver runs no consumer: drop --consumer-url") }
        case nil:
            if (consumerURL == nil) != (driverURL == nil) {
                throw ValidationError(
                    "give both --consumer-url and --driver-url, or neither (to use the embedded server); --only consumer|driver runs one side"
                )
            }
        }
        for url in [consumerURL, driverURL].compactMap({ $0 }) {
            guard
                let parsed = URL(
                    string: url.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
                let scheme = parsed.scheme, ["http", "https"].contains(scheme.lowercased()), parsed.host != nil
            else {
                throw ValidationError(
                    "--consumer-url/--driver-url must be an http(s) URL, got \(SecretRedactor.redact(url))")
            }
        }
        for header in headers where HTTPHeader(parsing: header) == nil {
            // Not echoed: a header without its colon is still somebody's credential.
            throw ValidationError(
                "--header must be NAME:VALUE; one of them (\(header.count) characters) has no ':' or no name")
        }
        if insecure, caCertificates != nil { throw ValidationError("give --cacert or --insecure, not both") }
        if noProxy, proxy != nil { throw ValidationError("give --proxy or --no-proxy, not both") }
        do { _ = try proxySettings() } catch { throw ValidationError(error.message) }
        if let path = caCertificates, !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("--cacert: cannot read \(path)")
        }
        // Numbers within the table's ranges: `inf` or 1e300 would trap where they become clock ticks.
        try Setting.refreshMargin.check(refreshMargin)
        try Setting.timeout.check(timeout)
        try Setting.updateInterval.check(updateInterval)
        if let givenRamp { try Setting.ramp.check(givenRamp) }
        try Setting.lifetime.check(lifetime)
        try Setting.completionTimeout.check(completionTimeout)
        try validateSources()
        if let rule = Setting.trips.refusal(trips) ?? Setting.vehicles.refusal(vehicles) {
            throw ValidationError("\(Setting.trips.flag) and \(Setting.vehicles.flag) \(rule)")
        }
        try Self.validateIDs([
            (Setting.tripID.flag, tripID), (Setting.vehicleID.flag, vehicleID), (Setting.trackingID.flag, trackingID),
            (Setting.deliveryVehicleID.flag, deliveryVehicleID),
        ])
        try Self.validateKeySet(jwks)
        try sharding.validate(trips: trips, vehicles: vehicles)
        if let providerID, providerID.isEmpty { throw ValidationError("--provider-id must not be empty") }
        try validateFleetEngine()
    }

    private func validateSources() throws {
        if consumerClass != nil, consumerSource == nil {
            throw ValidationError("--consumer-class needs --consumer-source FILE")
        }
        if driverClass != nil, driverSource == nil {
            throw ValidationError("--driver-class needs --driver-source FILE")
        }
        for role in ProviderKind.Role.allCases where source(role) != nil {
            if only != nil, only != role {
                throw ValidationError(
                    "--\(role.rawValue)-source runs the \(role.rawValue) side, which --only leaves out")
            }
            // One instance of the customer's class is one SDK, as on a phone.
            if (role == .consumer ? trips : vehicles) > 1 {
                throw ValidationError(
                    "--\(role.rawValue)-source runs one SDK of your class: drop \(role == .consumer ? "--trips" : "--vehicles") or set it to 1"
                )
            }
        }
    }

    private func validateFleetEngine() throws {
        if noFleetEngine, fleetEngineURL != nil {
            throw ValidationError("give --fleet-engine or --no-fleet-engine, not both")
        }
        if fleetEngineWrites, fleetEngineURL == nil {
            throw ValidationError(
                "--fleet-engine-writes needs --fleet-engine URL (the embedded emulator always takes the SDKs' updates)")
        }
        if let url = fleetEngineURL {
            guard let parsed = URL(string: url), let scheme = parsed.scheme,
                ["http", "https"].contains(scheme.lowercased()),
                parsed.host != nil, parsed.query == nil
            else {
                throw ValidationError(
                    "--fleet-engine must be an http(s) base URL such as https://fleetengine.googleapis.com, got \(SecretRedactor.redact(url))"
                )
            }
            guard let providerID, FleetEngineID.problem(providerID) == nil else {
                throw ValidationError("--fleet-engine needs --provider-id PROJECT: the calls name providers/PROJECT")
            }
        }
        try Setting.fleetEngineInterval.check(fleetEngineInterval)
    }

    /// Where the SDKs' Fleet Engine calls go: `--fleet-engine`, else the embedded emulator at
    /// `embeddedBase` (for `embeddedProject`), else nowhere. A fleet's interval is stretched to
    /// keep the run within `FleetEngineTarget.maximumRate` calls a second.
    func fleetEngineTarget(embeddedBase: String?, embeddedProject: String?) -> FleetEngineTarget? {
        if noFleetEngine { return nil }
        let interval = FleetEngineTarget.interval(for: runningSDKs, asked: fleetEngineInterval)
        if let fleetEngineURL, let url = URL(string: fleetEngineURL), let providerID {
            return FleetEngineTarget(
                base: url, provider: providerID, writes: fleetEngineWrites, interval: interval, timeout: timeout)
        }
        guard let embeddedBase, let url = URL(string: embeddedBase), let embeddedProject else { return nil }
        return FleetEngineTarget(
            base: url, provider: embeddedProject, writes: true, interval: interval, timeout: timeout)
    }

    /// Fleet Engine's rule for a resource ID (`FleetEngineID`): an ID it would refuse is a usage
    /// error, since every token minted for it would be refused too.
    static func validateIDs(_ flags: [(name: String, id: String)]) throws {
        for (name, id) in flags {
            if let problem = FleetEngineID.problem(id) {
                throw ValidationError("\(name) \"\(id)\" is not a Fleet Engine ID: \(problem)")
            }
        }
    }

    /// A `--jwks` file is read now, so a typo is a one-line error before anything starts.
    static func validateKeySet(_ jwks: String?) throws {
        guard let jwks else { return }
        guard case .file(let path) = KeySetLocation(argument: jwks) else { return }
        do { try JWKSVerifier.validate(file: path) } catch { throw ValidationError("--jwks: \(error.description)") }
    }

    /// How the transport checks an https backend's certificate.
    var trust: HTTPClientTransport.Trust { Self.trust(insecure: insecure, caCertificates: caCertificates) }

    static func trust(insecure: Bool, caCertificates: String?) -> HTTPClientTransport.Trust {
        if insecure { return .insecure }
        return caCertificates.map { .certificates(pemFile: $0) } ?? .system
    }

    /// The proxy every request is routed by: `--no-proxy`, else `--proxy` (or the profile's `proxy:`),
    /// else the environment's variables. Throws the one-line reason a proxy URL is unusable.
    func proxySettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ProxyURLError)
        -> ProxySettings
    {
        try Self.proxySettings(proxy: proxy, noProxy: noProxy, tunnel: proxyTunnel, environment: environment)
    }

    /// The rules of `proxySettings`, for every command with `--proxy`, `--no-proxy` and `--proxy-tunnel` (`tap` too).
    static func proxySettings(proxy: String?, noProxy: Bool, tunnel: Bool, environment: [String: String])
        throws(ProxyURLError) -> ProxySettings
    {
        if noProxy { return ProxySettings(http: nil, https: nil, source: "flag --no-proxy") }
        var settings: ProxySettings
        if let proxy {
            settings = .single(
                try ProxyServer(parsing: proxy, origin: "--proxy"), environment: environment, source: "--proxy")
        } else {
            settings = try .fromEnvironment(environment)
        }
        settings.tunnelsHTTP = tunnel
        return settings
    }

    /// The IDs the simulated SDKs start with: the flag's ID for one SDK, numbered IDs for a fleet
    /// (only `--shard`'s slice of them, numbered as in the whole fleet).
    func initialIDs(_ kind: ProviderKind) -> [String] {
        let count = kind.role == .consumer ? trips : vehicles
        let (single, prefix) =
            switch kind {
            case .consumer: (tripID, "trip")
            case .driver: (vehicleID, "vehicle")
            case .deliveryConsumer: (trackingID, "tracking")
            case .deliveryDriver: (deliveryVehicleID, "delivery-vehicle")
            }
        if count == 1 { return [single] }
        return sharding.shard.range(of: count).map { IDSequence.fleetID(prefix: prefix, index: $0, count: count) }
    }

    /// The endpoint for `kind`: the user's URL if given, else the embedded server's route under
    /// `embeddedBase`. Keys and expiry mode are the kind's sample backend's unless given.
    func endpoint(_ kind: ProviderKind, embeddedBase: String?) -> TokenEndpoint {
        var endpoint = TokenEndpoint.sampleBackend(kind, base: embeddedBase ?? "http://127.0.0.1")
        if let template = kind.role == .consumer ? consumerURL : driverURL { endpoint.urlTemplate = template }
        if let tokenKey { endpoint.tokenKey = tokenKey }
        if let expiryKey { endpoint.expiryKey = expiryKey }
        if let expiry { endpoint.expiryMode = expiry }
        endpoint.headers = headers.compactMap(HTTPHeader.init(parsing:))
        endpoint.timeout = timeout
        endpoint.providerID = providerID
        endpoint.lifetimeChosen = kind.role == .consumer ? consumerURL == nil : driverURL == nil
        return endpoint
    }
}

extension ExpiryMode: ExpressibleByArgument {}
extension ProviderKind.Role: ExpressibleByArgument {}
extension ProviderKind.Solution: ExpressibleByArgument {}
extension ProviderLogic: ExpressibleByArgument {}
