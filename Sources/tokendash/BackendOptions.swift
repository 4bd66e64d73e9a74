import ArgumentParser
import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import TokenSignatures

/// The flags shared by the dashboard and `watch`: which backend to ask, and how to read its answers.
/// Flags a config file can also set are optional (`given…`), so a flag left out can take the
/// profile's value (`filled(from:)`); the plain names read the value in effect, built-in default
/// included.
struct BackendOptions: ParsableArguments {
    @Option(name: .customLong("solution"), help: "Which Fleet Engine solution's SDKs to simulate: on-demand (trip and vehicle tokens) or last-mile (delivery consumer and delivery driver tokens). (default: on-demand)")
    var givenSolution: ProviderKind.Solution?
    var solution: ProviderKind.Solution { givenSolution ?? .onDemand }

    @Option(name: .customLong("consumer-url"), help: "Consumer-side token URL template, e.g. https://host/token/consumer/{tripId} (last-mile: https://host/token/delivery_consumer/{trackingId}). With a URL, no embedded server starts.")
    var consumerURL: String?

    @Option(name: .customLong("driver-url"), help: "Driver-side token URL template, e.g. https://host/token/driver/{vehicleId} (last-mile: https://host/token/delivery_driver/{deliveryVehicleId}).")
    var driverURL: String?

    // Optional: unset, the response's shape is detected (each solution's sample backend included).
    @Option(name: .customLong("token-key"), help: "JSON key (or dotted path, e.g. data.token) holding the token. Default: detect the shape (jwt, token, access_token, or a bare JWT body).")
    var tokenKey: String?

    @Option(name: .customLong("expiry-key"), help: "JSON key (or dotted path) holding the expiration. Default: detect (expirationTimestamp, expiration_timestamp_ms, expires_in), else the JWT's exp.")
    var expiryKey: String?

    @Option(name: .customLong("expiry"), help: "How to read the expiration: auto, absolute (epoch s), absolute-ms, relative (s from now), jwt (only the token's exp). The token's signed exp always caps it. Default: auto.")
    var expiry: ExpiryMode?

    @Option(name: .customLong("jwks"), help: "Verify signatures against this JWKS (file or http(s) URL). Default: the embedded server's own key set, or Google's published keys for a service-account issuer.")
    var jwks: String?

    @Option(name: .customLong("provider-id"), help: "The Google Cloud project (Fleet Engine provider ID) the tokens' issuer must belong to.")
    var providerID: String?

    @Option(name: .customLong("fleet-engine"), help: "Send the simulated SDKs' calls to this Fleet Engine (e.g. https://fleetengine.googleapis.com) with their tokens; needs --provider-id. Read-only (GetVehicle, GetTrip, GetDeliveryVehicle, GetTaskTrackingInfo) unless --fleet-engine-writes. Default: the embedded server's Fleet Engine emulator, when the embedded server runs.")
    var fleetEngineURL: String?

    @Flag(name: .customLong("fleet-engine-writes"), help: "Let the driver SDKs send their location updates (UpdateVehicle, UpdateDeliveryVehicle) to --fleet-engine.")
    var fleetEngineWrites = false

    @Flag(name: .customLong("no-fleet-engine"), help: "Make no Fleet Engine calls: tokens are fetched and judged, never used.")
    var noFleetEngine = false

    @Option(name: .customLong("fleet-engine-interval"), parsing: .unconditional, help: "Seconds between one SDK's Fleet Engine calls, at least 1. (default: 10)")
    var givenFleetEngineInterval: Double?
    var fleetEngineInterval: Double { givenFleetEngineInterval ?? FleetEngineTarget.defaultInterval }

    @Option(name: .customLong("provider-logic"), help: "Whose token-provider logic the simulated SDKs run: tokendash (single-flight, refresh-ahead, stale answers discarded), swift-sample or objc-sample (faithful ports of Google's samples, flaws included). (default: tokendash)")
    var givenProviderLogic: ProviderLogic?
    var providerLogic: ProviderLogic { givenProviderLogic ?? .tokendash }

    @Option(name: .customLong("trip-id"), help: "Initial trip ID. (default: trip-0001)")
    var givenTripID: String?
    var tripID: String { givenTripID ?? "trip-0001" }

    @Option(name: .customLong("vehicle-id"), help: "Initial vehicle ID. (default: vehicle-0001)")
    var givenVehicleID: String?
    var vehicleID: String { givenVehicleID ?? "vehicle-0001" }

    @Option(name: .customLong("tracking-id"), help: "Initial tracking ID (--solution last-mile). (default: tracking-0001)")
    var givenTrackingID: String?
    var trackingID: String { givenTrackingID ?? "tracking-0001" }

    @Option(name: .customLong("delivery-vehicle-id"), help: "Initial delivery vehicle ID (--solution last-mile). (default: delivery-vehicle-0001)")
    var givenDeliveryVehicleID: String?
    var deliveryVehicleID: String { givenDeliveryVehicleID ?? "delivery-vehicle-0001" }

    @Option(name: .customLong("refresh-margin"), parsing: .unconditional, help: "Seconds before expiry to fetch a new token (0 waits for expiry, as Google's samples). (default: 300.0)")
    var givenRefreshMargin: Double?
    var refreshMargin: Double { givenRefreshMargin ?? 300 }

    @Option(name: .customLong("header"), help: "Extra request header NAME:VALUE (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("cacert"), help: "PEM file with the CA certificate(s) to trust for an https backend, instead of the system's (as curl --cacert).")
    var caCertificates: String?

    @Flag(name: .customLong("insecure"), help: "Do not verify the backend's TLS certificate. Shown in red in the header; watch adds \"insecure\":true to every line.")
    var insecure = false

    @Option(name: .customLong("proxy"), help: "HTTP proxy for every backend request, http://[user:password@]host[:port] (http requests sent to it in absolute form, https through CONNECT); no_proxy still applies. Default: https_proxy / HTTPS_PROXY, http_proxy, all_proxy, no_proxy from the environment, as curl reads them.")
    var proxy: String?

    @Flag(name: .customLong("proxy-tunnel"), help: "Ask the proxy for a CONNECT tunnel for http backends too, as curl --proxytunnel (by default an http request goes to the proxy in absolute form).")
    var proxyTunnel = false

    @Flag(name: .customLong("no-proxy"), help: "Ask every backend directly, whatever the proxy variables say.")
    var noProxy = false

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: "Request timeout in seconds. (default: 10.0)")
    var givenTimeout: Double?
    var timeout: Double { givenTimeout ?? 10 }

    @Option(name: .customLong("lifetime"), parsing: .unconditional, help: "Lifetime in seconds of tokens the embedded server mints. (default: 60)")
    var givenLifetime: Int?
    var lifetime: Int { givenLifetime ?? 60 }

    @Option(name: .customLong("update-interval"), parsing: .unconditional, help: "Seconds between the simulated SDK's location updates (each asks for a token). (default: 5.0)")
    var givenUpdateInterval: Double?
    var updateInterval: Double { givenUpdateInterval ?? 5 }

    @Option(name: .customLong("trips"), parsing: .unconditional, help: "Number of simulated Consumer SDKs, each with its own trip (last-mile: tracking ID) and token. (default: 1)")
    var givenTrips: Int?
    var trips: Int { givenTrips ?? 1 }

    @Option(name: .customLong("vehicles"), parsing: .unconditional, help: "Number of simulated Driver SDKs, each with its own vehicle (last-mile: delivery vehicle) and token. (default: 1)")
    var givenVehicles: Int?
    var vehicles: Int { givenVehicles ?? 1 }

    @Option(name: .customLong("ramp"), parsing: .unconditional, help: "Seconds over which the simulated SDKs make their first calls, spread evenly; 0 starts them all at once (a deliberate storm). (default: at most 1000 new SDKs a second)")
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

    @Option(help: "Run and show one side only: consumer or driver (then one backend URL is enough).")
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
                throw ValidationError("give both --consumer-url and --driver-url, or neither (to use the embedded server); --only consumer|driver runs one side")
            }
        }
        for url in [consumerURL, driverURL].compactMap({ $0 }) {
            guard let parsed = URL(string: url.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
                  let scheme = parsed.scheme, ["http", "https"].contains(scheme.lowercased()), parsed.host != nil else {
                throw ValidationError("--consumer-url/--driver-url must be an http(s) URL, got \(SecretRedactor.redact(url))")
            }
        }
        for header in headers where HTTPHeader(parsing: header) == nil {
            // Not echoed: a header without its colon is still somebody's credential.
            throw ValidationError("--header must be NAME:VALUE; one of them (\(header.count) characters) has no ':' or no name")
        }
        if insecure, caCertificates != nil { throw ValidationError("give --cacert or --insecure, not both") }
        if noProxy, proxy != nil { throw ValidationError("give --proxy or --no-proxy, not both") }
        do { _ = try proxySettings() } catch { throw ValidationError(error.message) }
        if let path = caCertificates, !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("--cacert: cannot read \(path)")
        }
        // Durations end at 30 days (`InputBounds`): `inf` or 1e300 would trap where they become clock ticks.
        let longest = InputBounds.longestDuration, days = InputBounds.describe(longest)
        guard refreshMargin >= 0, refreshMargin <= longest else { throw ValidationError("--refresh-margin must be 0 to \(days) of seconds") }
        guard timeout > 0, timeout <= longest else { throw ValidationError("--timeout must be more than 0 seconds and at most \(days)") }
        guard updateInterval >= 0.05, updateInterval <= longest else { throw ValidationError("--update-interval must be 0.05 seconds to \(days)") }
        if let givenRamp, !(0...FleetRamp.longest).contains(givenRamp) {
            throw ValidationError("--ramp must be between 0 and \(Int(FleetRamp.longest)) seconds")
        }
        guard (1...3600).contains(lifetime) else { throw ValidationError("--lifetime must be between 1 and 3600 seconds") }
        guard (1...100_000).contains(trips), (1...100_000).contains(vehicles) else {
            throw ValidationError("--trips and --vehicles must be between 1 and 100000")
        }
        try Self.validateIDs([("--trip-id", tripID), ("--vehicle-id", vehicleID), ("--tracking-id", trackingID),
                              ("--delivery-vehicle-id", deliveryVehicleID)])
        try Self.validateKeySet(jwks)
        try sharding.validate(trips: trips, vehicles: vehicles)
        if let providerID, providerID.isEmpty { throw ValidationError("--provider-id must not be empty") }
        try validateFleetEngine()
    }

    private func validateFleetEngine() throws {
        if noFleetEngine, fleetEngineURL != nil { throw ValidationError("give --fleet-engine or --no-fleet-engine, not both") }
        if fleetEngineWrites, fleetEngineURL == nil {
            throw ValidationError("--fleet-engine-writes needs --fleet-engine URL (the embedded emulator always takes the SDKs' updates)")
        }
        if let url = fleetEngineURL {
            guard let parsed = URL(string: url), let scheme = parsed.scheme, ["http", "https"].contains(scheme.lowercased()),
                  parsed.host != nil, parsed.query == nil else {
                throw ValidationError("--fleet-engine must be an http(s) base URL such as https://fleetengine.googleapis.com, got \(SecretRedactor.redact(url))")
            }
            guard let providerID, FleetEngineID.problem(providerID) == nil else {
                throw ValidationError("--fleet-engine needs --provider-id PROJECT: the calls name providers/PROJECT")
            }
        }
        guard fleetEngineInterval >= 1, fleetEngineInterval <= InputBounds.longestDuration else {
            throw ValidationError("--fleet-engine-interval must be 1 second to \(InputBounds.describe(InputBounds.longestDuration))")
        }
    }

    /// Where the SDKs' Fleet Engine calls go: `--fleet-engine`, else the embedded emulator at
    /// `embeddedBase` (for `embeddedProject`), else nowhere. A fleet's interval is stretched to
    /// keep the run within `FleetEngineTarget.maximumRate` calls a second.
    func fleetEngineTarget(embeddedBase: String?, embeddedProject: String?) -> FleetEngineTarget? {
        if noFleetEngine { return nil }
        let interval = FleetEngineTarget.interval(for: runningSDKs, asked: fleetEngineInterval)
        if let fleetEngineURL, let url = URL(string: fleetEngineURL), let providerID {
            return FleetEngineTarget(base: url, provider: providerID, writes: fleetEngineWrites, interval: interval, timeout: timeout)
        }
        guard let embeddedBase, let url = URL(string: embeddedBase), let embeddedProject else { return nil }
        return FleetEngineTarget(base: url, provider: embeddedProject, writes: true, interval: interval, timeout: timeout)
    }

    /// Fleet Engine's rule for a resource ID (`FleetEngineID`): an ID it would refuse is a usage
    /// error, since every token minted for it would be refused too.
    static func validateIDs(_ flags: [(name: String, id: String)]) throws {
        for (name, id) in flags {
            if let problem = FleetEngineID.problem(id) { throw ValidationError("\(name) \"\(id)\" is not a Fleet Engine ID: \(problem)") }
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
    func proxySettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ProxyURLError) -> ProxySettings {
        if noProxy { return ProxySettings(http: nil, https: nil, source: "flag --no-proxy") }
        var settings: ProxySettings
        if let proxy {
            settings = .single(try ProxyServer(parsing: proxy, origin: "--proxy"), environment: environment, source: "--proxy")
        } else {
            settings = try .fromEnvironment(environment)
        }
        settings.tunnelsHTTP = proxyTunnel
        return settings
    }

    /// The IDs the simulated SDKs start with: the flag's ID for one SDK, numbered IDs for a fleet
    /// (only `--shard`'s slice of them, numbered as in the whole fleet).
    func initialIDs(_ kind: ProviderKind) -> [String] {
        let count = kind.role == .consumer ? trips : vehicles
        let (single, prefix) = switch kind {
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
