import ArgumentParser
import Fleet
import Foundation
import HTTPTransport
import ProviderVocabulary
import ProxyKit
import Redaction
import Settings
import TokenReading
import TokenSignatures

/// The flags shared by the dashboard and `watch`: which backend to ask, and how to read its answers.
/// Flags a config file can also set are optional (`given…`), so a flag left out can take the
/// profile's value (`filled(from:)`); the plain names read the value in effect, built-in default
/// included.
package struct BackendOptions: ParsableArguments {
    package init() {}

    // The flags in titled groups, so `tokendash help dashboard` (and `watch`) sorts them by what
    // they are about; each is read in its group.
    @OptionGroup(title: "Backend") package var backendFlags: BackendFlags
    @OptionGroup(title: "Transport") package var transport: TransportOptions
    @OptionGroup(title: "Simulated SDKs") package var sdks: SDKFlags
    @OptionGroup(title: "Your own provider") package var ownProvider: SourceProviderFlags
    @OptionGroup(title: "Fleet") package var fleet: FleetFlags
    @OptionGroup(title: "Fleet Engine") package var fleetEngine: FleetEngineFlags

    package var solution: ProviderKind.Solution { backendFlags.givenSolution ?? Setting.solution.builtIn() }

    package var fleetEngineInterval: Double {
        fleetEngine.givenFleetEngineInterval ?? Setting.fleetEngineInterval.builtIn()
    }

    package var providerLogic: ProviderLogic { sdks.givenProviderLogic ?? Setting.providerLogic.builtIn() }

    package var completionTimeout: Double { ownProvider.givenCompletionTimeout ?? Setting.completionTimeout.builtIn() }

    /// The sides whose provider is the customer's own source: its files (the flag repeated for
    /// a class in several), and the class chosen.
    package func source(_ role: ProviderKind.Role) -> (paths: [String], className: String?)? {
        let (paths, className) =
            role == .consumer
            ? (ownProvider.consumerSources, ownProvider.consumerClass)
            : (ownProvider.driverSources, ownProvider.driverClass)
        return paths.isEmpty ? nil : (paths, className)
    }

    package var tripID: String { sdks.givenTripID ?? Setting.tripID.builtIn() }

    package var vehicleID: String { sdks.givenVehicleID ?? Setting.vehicleID.builtIn() }

    package var trackingID: String { sdks.givenTrackingID ?? Setting.trackingID.builtIn() }

    package var deliveryVehicleID: String { sdks.givenDeliveryVehicleID ?? Setting.deliveryVehicleID.builtIn() }

    package var refreshMargin: Double { sdks.givenRefreshMargin ?? Setting.refreshMargin.builtIn() }

    package var timeout: Double { backendFlags.givenTimeout ?? Setting.timeout.builtIn() }

    package var lifetime: Int { backendFlags.givenLifetime ?? Setting.lifetime.builtIn() }

    package var updateInterval: Double { sdks.givenUpdateInterval ?? Setting.updateInterval.builtIn() }

    package var trips: Int { fleet.givenTrips ?? Setting.trips.builtIn() }

    package var vehicles: Int { fleet.givenVehicles ?? Setting.vehicles.builtIn() }

    /// The ramp in effect: the flag's, else 1,000 new SDKs a second over the SDKs this instance runs.
    package var ramp: FleetRamp { fleet.givenRamp.map(FleetRamp.init(duration:)) ?? .atDefaultRate(total: runningSDKs) }

    /// The SDKs this instance runs: its shard's slice of each side `--only` leaves.
    package var runningSDKs: Int {
        roles.reduce(0) { sum, role in
            let count = role == .consumer ? trips : vehicles
            return sum + (count == 1 ? 1 : fleet.sharding.shard.range(of: count).count)
        }
    }

    package var usesEmbeddedServer: Bool { backendFlags.consumerURL == nil && backendFlags.driverURL == nil }

    /// The sides that run: both, or the one `--only` names.
    package var roles: [ProviderKind.Role] { sdks.only.map { [$0] } ?? ProviderKind.Role.allCases }

    package func validate() throws {
        switch sdks.only {
        case .consumer?:
            if backendFlags.driverURL != nil {
                throw ValidationError("--only consumer runs no driver: drop --driver-url")
            }
        case .driver?:
            if backendFlags.consumerURL != nil {
                throw ValidationError("--only driver runs no consumer: drop --consumer-url")
            }
        case nil:
            if (backendFlags.consumerURL == nil) != (backendFlags.driverURL == nil) {
                throw ValidationError(
                    "give both --consumer-url and --driver-url, or neither (to use the embedded server); --only consumer|driver runs one side"
                )
            }
        }
        for url in [backendFlags.consumerURL, backendFlags.driverURL].compactMap({ $0 }) {
            guard
                let parsed = URL(
                    string: url.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
                let scheme = parsed.scheme, ["http", "https"].contains(scheme.lowercased()), parsed.host != nil
            else {
                throw ValidationError(
                    "--consumer-url/--driver-url must be an http(s) URL, got \(SecretRedactor.redact(url))")
            }
        }
        for header in backendFlags.headers where HTTPHeader(parsing: header) == nil {
            // Not echoed: a header without its colon is still somebody's credential.
            throw ValidationError(
                "--header must be NAME:VALUE; one of them (\(header.count) characters) has no ':' or no name")
        }
        if transport.insecure, transport.caCertificates != nil {
            throw ValidationError("give --cacert or --insecure, not both")
        }
        if transport.noProxy, transport.proxy != nil { throw ValidationError("give --proxy or --no-proxy, not both") }
        do { _ = try proxySettings() } catch { throw ValidationError(error.message) }
        if let path = transport.caCertificates, !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("--cacert: cannot read \(path)")
        }
        // Numbers within the table's ranges: `inf` or 1e300 would trap where they become clock ticks.
        try Setting.refreshMargin.check(refreshMargin)
        try Setting.timeout.check(timeout)
        try Setting.updateInterval.check(updateInterval)
        if let ramp = fleet.givenRamp { try Setting.ramp.check(ramp) }
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
        try Self.validateKeySet(backendFlags.jwks)
        try fleet.sharding.validate(trips: trips, vehicles: vehicles)
        if let id = backendFlags.providerID, id.isEmpty { throw ValidationError("--provider-id must not be empty") }
        try validateFleetEngine()
    }

    private func validateSources() throws {
        if ownProvider.consumerClass != nil, ownProvider.consumerSource == nil {
            throw ValidationError("--consumer-class needs --consumer-source FILE")
        }
        if ownProvider.driverClass != nil, ownProvider.driverSource == nil {
            throw ValidationError("--driver-class needs --driver-source FILE")
        }
        for role in ProviderKind.Role.allCases where source(role) != nil {
            if sdks.only != nil, sdks.only != role {
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
        if fleetEngine.noFleetEngine, fleetEngine.fleetEngineURL != nil {
            throw ValidationError("give --fleet-engine or --no-fleet-engine, not both")
        }
        if fleetEngine.log.path != nil,
            fleetEngine.fleetEngineURL != nil || fleetEngine.noFleetEngine || !usesEmbeddedServer
        {
            throw ValidationError(
                "--fleet-engine-log writes the embedded emulator's calls: it needs the embedded server, without --fleet-engine or --no-fleet-engine"
            )
        }
        if fleetEngine.fleetEngineWrites, fleetEngine.fleetEngineURL == nil {
            throw ValidationError(
                "--fleet-engine-writes needs --fleet-engine URL (the embedded emulator always takes the SDKs' updates)")
        }
        if let url = fleetEngine.fleetEngineURL {
            guard let parsed = URL(string: url), let scheme = parsed.scheme,
                ["http", "https"].contains(scheme.lowercased()),
                parsed.host != nil, parsed.query == nil
            else {
                throw ValidationError(
                    "--fleet-engine must be an http(s) base URL such as https://fleetengine.googleapis.com, got \(SecretRedactor.redact(url))"
                )
            }
            guard let id = backendFlags.providerID, FleetEngineID.problem(id) == nil else {
                throw ValidationError("--fleet-engine needs --provider-id PROJECT: the calls name providers/PROJECT")
            }
        }
        try Setting.fleetEngineInterval.check(fleetEngineInterval)
    }

    /// Fleet Engine's rule for a resource ID (`FleetEngineID`): an ID it would refuse is a usage
    /// error, since every token minted for it would be refused too.
    package static func validateIDs(_ flags: [(name: String, id: String)]) throws {
        for (name, id) in flags {
            if let problem = FleetEngineID.problem(id) {
                throw ValidationError("\(name) \"\(id)\" is not a Fleet Engine ID: \(problem)")
            }
        }
    }

    /// A `--jwks` file is read now, so a typo is a one-line error before anything starts.
    package static func validateKeySet(_ jwks: String?) throws {
        guard let jwks else { return }
        guard case .file(let path) = KeySetLocation(argument: jwks) else { return }
        do { try JWKSVerifier.validate(file: path) } catch { throw ValidationError("--jwks: \(error.description)") }
    }

    /// How the transport checks an https backend's certificate.
    package var trust: HTTPClientTransport.Trust {
        Self.trust(insecure: transport.insecure, caCertificates: transport.caCertificates)
    }

    package static func trust(insecure: Bool, caCertificates: String?) -> HTTPClientTransport.Trust {
        if insecure { return .insecure }
        return caCertificates.map { .certificates(pemFile: $0) } ?? .system
    }

    /// The proxy every request is routed by: `--no-proxy`, else `--proxy` (or the profile's `proxy:`),
    /// else the environment's variables. Throws the one-line reason a proxy URL is unusable.
    package func proxySettings(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ProxyURLError)
        -> ProxySettings
    {
        try Self.proxySettings(
            proxy: transport.proxy, noProxy: transport.noProxy, tunnel: transport.proxyTunnel, environment: environment)
    }

    /// The rules of `proxySettings`, for every command with `--proxy`, `--no-proxy` and `--proxy-tunnel` (`tap` too).
    package static func proxySettings(proxy: String?, noProxy: Bool, tunnel: Bool, environment: [String: String])
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
    package func initialIDs(_ kind: ProviderKind) -> [String] {
        let count = kind.role == .consumer ? trips : vehicles
        let (single, prefix) =
            switch kind {
            case .consumer: (tripID, "trip")
            case .driver: (vehicleID, "vehicle")
            case .deliveryConsumer: (trackingID, "tracking")
            case .deliveryDriver: (deliveryVehicleID, "delivery-vehicle")
            }
        if count == 1 { return [single] }
        return fleet.sharding.shard.range(of: count).map { IDSequence.fleetID(prefix: prefix, index: $0, count: count) }
    }
}

extension ExpiryMode: ExpressibleByArgument {}
extension ProviderKind.Role: ExpressibleByArgument {}
extension ProviderKind.Solution: ExpressibleByArgument {}
extension ProviderLogic: ExpressibleByArgument {}
