import ArgumentParser
import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import ProxyKit
import Redaction
import Settings
import TokenSignatures

/// The flags shared by the dashboard and `watch`: which backend to ask, and how to read its answers.
/// Flags a config file can also set are optional (`given…`), so a flag left out can take the
/// profile's value (`filled(from:)`); the plain names read the value in effect, built-in default
/// included.
struct BackendOptions: ParsableArguments {
    // The flags in titled groups, so `tokendash help dashboard` (and `watch`) sorts them by what
    // they are about; each is read here under its old name, so the code reading them is unchanged.
    @OptionGroup(title: "Backend") var backendFlags: BackendFlags
    @OptionGroup(title: "Transport") var transport: TransportOptions
    @OptionGroup(title: "Simulated SDKs") var sdks: SDKFlags
    @OptionGroup(title: "Your own provider") var ownProvider: SourceProviderFlags
    @OptionGroup(title: "Fleet") var fleet: FleetFlags
    @OptionGroup(title: "Fleet Engine") var fleetEngine: FleetEngineFlags

    var givenSolution: ProviderKind.Solution? {
        get { backendFlags.givenSolution }
        set { backendFlags.givenSolution = newValue }
    }
    var consumerURL: String? {
        get { backendFlags.consumerURL }
        set { backendFlags.consumerURL = newValue }
    }
    var driverURL: String? {
        get { backendFlags.driverURL }
        set { backendFlags.driverURL = newValue }
    }
    var tokenKey: String? {
        get { backendFlags.tokenKey }
        set { backendFlags.tokenKey = newValue }
    }
    var expiryKey: String? {
        get { backendFlags.expiryKey }
        set { backendFlags.expiryKey = newValue }
    }
    var expiry: ExpiryMode? {
        get { backendFlags.expiry }
        set { backendFlags.expiry = newValue }
    }
    var headers: [String] {
        get { backendFlags.headers }
        set { backendFlags.headers = newValue }
    }
    var givenTimeout: Double? {
        get { backendFlags.givenTimeout }
        set { backendFlags.givenTimeout = newValue }
    }
    var givenLifetime: Int? {
        get { backendFlags.givenLifetime }
        set { backendFlags.givenLifetime = newValue }
    }
    var jwks: String? {
        get { backendFlags.jwks }
        set { backendFlags.jwks = newValue }
    }
    var providerID: String? {
        get { backendFlags.providerID }
        set { backendFlags.providerID = newValue }
    }

    var caCertificates: String? {
        get { transport.caCertificates }
        set { transport.caCertificates = newValue }
    }
    var insecure: Bool {
        get { transport.insecure }
        set { transport.insecure = newValue }
    }
    var proxy: String? {
        get { transport.proxy }
        set { transport.proxy = newValue }
    }
    var proxyTunnel: Bool {
        get { transport.proxyTunnel }
        set { transport.proxyTunnel = newValue }
    }
    var noProxy: Bool {
        get { transport.noProxy }
        set { transport.noProxy = newValue }
    }

    var givenTripID: String? {
        get { sdks.givenTripID }
        set { sdks.givenTripID = newValue }
    }
    var givenVehicleID: String? {
        get { sdks.givenVehicleID }
        set { sdks.givenVehicleID = newValue }
    }
    var givenTrackingID: String? {
        get { sdks.givenTrackingID }
        set { sdks.givenTrackingID = newValue }
    }
    var givenDeliveryVehicleID: String? {
        get { sdks.givenDeliveryVehicleID }
        set { sdks.givenDeliveryVehicleID = newValue }
    }
    var givenRefreshMargin: Double? {
        get { sdks.givenRefreshMargin }
        set { sdks.givenRefreshMargin = newValue }
    }
    var givenUpdateInterval: Double? {
        get { sdks.givenUpdateInterval }
        set { sdks.givenUpdateInterval = newValue }
    }
    var givenProviderLogic: ProviderLogic? {
        get { sdks.givenProviderLogic }
        set { sdks.givenProviderLogic = newValue }
    }
    var only: ProviderKind.Role? {
        get { sdks.only }
        set { sdks.only = newValue }
    }

    /// The first file of the flag (a profile's one file fills it when no flag was given).
    var consumerSource: String? {
        get { ownProvider.consumerSources.first }
        set { ownProvider.consumerSources = newValue.map { [$0] } ?? [] }
    }
    var driverSource: String? {
        get { ownProvider.driverSources.first }
        set { ownProvider.driverSources = newValue.map { [$0] } ?? [] }
    }
    var consumerClass: String? {
        get { ownProvider.consumerClass }
        set { ownProvider.consumerClass = newValue }
    }
    var driverClass: String? {
        get { ownProvider.driverClass }
        set { ownProvider.driverClass = newValue }
    }
    var swiftc: String? {
        get { ownProvider.swiftc }
        set { ownProvider.swiftc = newValue }
    }
    var noSanitize: Bool {
        get { ownProvider.noSanitize }
        set { ownProvider.noSanitize = newValue }
    }
    var givenCompletionTimeout: Double? {
        get { ownProvider.givenCompletionTimeout }
        set { ownProvider.givenCompletionTimeout = newValue }
    }

    var givenTrips: Int? {
        get { fleet.givenTrips }
        set { fleet.givenTrips = newValue }
    }
    var givenVehicles: Int? {
        get { fleet.givenVehicles }
        set { fleet.givenVehicles = newValue }
    }
    var givenRamp: Double? {
        get { fleet.givenRamp }
        set { fleet.givenRamp = newValue }
    }
    var sharding: ShardOptions {
        get { fleet.sharding }
        set { fleet.sharding = newValue }
    }

    var fleetEngineURL: String? {
        get { fleetEngine.fleetEngineURL }
        set { fleetEngine.fleetEngineURL = newValue }
    }
    var fleetEngineWrites: Bool {
        get { fleetEngine.fleetEngineWrites }
        set { fleetEngine.fleetEngineWrites = newValue }
    }
    var noFleetEngine: Bool {
        get { fleetEngine.noFleetEngine }
        set { fleetEngine.noFleetEngine = newValue }
    }
    var givenFleetEngineInterval: Double? {
        get { fleetEngine.givenFleetEngineInterval }
        set { fleetEngine.givenFleetEngineInterval = newValue }
    }

    var solution: ProviderKind.Solution { givenSolution ?? Setting.solution.builtIn() }

    var fleetEngineInterval: Double { givenFleetEngineInterval ?? Setting.fleetEngineInterval.builtIn() }

    var providerLogic: ProviderLogic { givenProviderLogic ?? Setting.providerLogic.builtIn() }

    var completionTimeout: Double { givenCompletionTimeout ?? Setting.completionTimeout.builtIn() }

    /// The sides whose provider is the customer's own source: its files (the flag repeated for
    /// a class in several), and the class chosen.
    func source(_ role: ProviderKind.Role) -> (paths: [String], className: String?)? {
        let (paths, className) =
            role == .consumer
            ? (ownProvider.consumerSources, consumerClass) : (ownProvider.driverSources, driverClass)
        return paths.isEmpty ? nil : (paths, className)
    }

    var tripID: String { givenTripID ?? Setting.tripID.builtIn() }

    var vehicleID: String { givenVehicleID ?? Setting.vehicleID.builtIn() }

    var trackingID: String { givenTrackingID ?? Setting.trackingID.builtIn() }

    var deliveryVehicleID: String { givenDeliveryVehicleID ?? Setting.deliveryVehicleID.builtIn() }

    var refreshMargin: Double { givenRefreshMargin ?? Setting.refreshMargin.builtIn() }

    var timeout: Double { givenTimeout ?? Setting.timeout.builtIn() }

    var lifetime: Int { givenLifetime ?? Setting.lifetime.builtIn() }

    var updateInterval: Double { givenUpdateInterval ?? Setting.updateInterval.builtIn() }

    var trips: Int { givenTrips ?? Setting.trips.builtIn() }

    var vehicles: Int { givenVehicles ?? Setting.vehicles.builtIn() }

    /// The ramp in effect: the flag's, else 1,000 new SDKs a second over the SDKs this instance runs.
    var ramp: FleetRamp { givenRamp.map(FleetRamp.init(duration:)) ?? .atDefaultRate(total: runningSDKs) }

    /// The SDKs this instance runs: its shard's slice of each side `--only` leaves.
    var runningSDKs: Int {
        roles.reduce(0) { sum, role in
            let count = role == .consumer ? trips : vehicles
            return sum + (count == 1 ? 1 : sharding.shard.range(of: count).count)
        }
    }

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
        if fleetEngine.log.path != nil, fleetEngineURL != nil || noFleetEngine || !usesEmbeddedServer {
            throw ValidationError(
                "--fleet-engine-log writes the embedded emulator's calls: it needs the embedded server, without --fleet-engine or --no-fleet-engine"
            )
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
