import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import TokenServer
import TokenSignatures

/// Everything behind the screen or the JSON lines: the backend (embedded or the user's), one
/// shared transport and event stream, and the simulated SDKs of the solution's two kinds.
struct BackendSession: Sendable {
    let server: EmbeddedTokenServer?
    let events: EventBroadcaster
    let solution: ProviderKind.Solution
    /// The consumer-side SDKs (trips, or tracked shipments) and the driver-side ones (vehicles,
    /// or delivery vehicles); existentials so that either solution's pair fits.
    let consumers: any SDKGroup
    let drivers: any SDKGroup
    /// The simulated phones' clock, which a scenario may put wrong.
    let deviceClock: DeviceClock
    /// Where the SDKs' Fleet Engine calls go; nil when they make none.
    let fleetEngine: FleetEngineTarget?
    let consumerEndpoint: TokenEndpoint
    let driverEndpoint: TokenEndpoint
    let transport: HTTPClientTransport
    /// The sides that run (`--only`); the other group exists but never asks for a token.
    let roles: [ProviderKind.Role]

    /// TLS certificates are not verified (`--insecure`): the header shows it in red, `watch` on every line.
    var insecure: Bool { transport.isInsecure }

    /// Starts the embedded server when no URLs were given, then builds the providers.
    static func start(_ options: BackendOptions) async throws -> BackendSession {
        // Every header value is a secret from here on, wherever it shows up (a backend's 401
        // body quoting the request's Authorization header included).
        for header in options.headers.compactMap(HTTPHeader.init(parsing:)) { SecretRedactor.register(header.value) }
        var proxy = try options.proxySettings()
        // So are the proxy's password and credential: a proxy's 407 page may quote them.
        proxy.secrets.forEach(SecretRedactor.register)
        // The embedded server listens on loopback, where no proxy can reach it.
        if options.usesEmbeddedServer { proxy = proxy.bypassing(host: "127.0.0.1") }
        // Made first: a CA file that holds no certificate stops us before a server is started.
        let transport = try HTTPClientTransport(trust: options.trust, proxy: proxy)
        var server: EmbeddedTokenServer?
        var base: String?
        if options.usesEmbeddedServer {
            do {
                let embedded = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(lifetime: TimeInterval(options.lifetime)))
                base = try await embedded.start().absoluteString
                server = embedded
            } catch {
                // An HTTPClient dropped without shutdown traps in debug builds.
                await transport.shutdown()
                throw error
            }
        }
        let events = EventBroadcaster()
        let solution = options.solution
        let consumer = options.endpoint(solution.consumerKind, embeddedBase: base)
        let driver = options.endpoint(solution.driverKind, embeddedBase: base)
        // One verifier for both kinds, so a key set is fetched once. The embedded server's tokens
        // are checked against its own published JWKS, over HTTP like any backend's.
        let keySet = options.jwks.map(KeySetLocation.init(argument:))
            ?? base.flatMap { URL(string: $0 + "/.well-known/jwks.json") }.map(KeySetLocation.url)
        let verifier = JWKSVerifier(keySet: keySet, transport: transport)
        let fleetEngine = options.fleetEngineTarget(embeddedBase: base, embeddedProject: server?.fleetEngineProject)
        let deviceClock = DeviceClock()
        func group<Context: AuthorizationContext>(_: Context.Type, _ endpoint: TokenEndpoint) -> any SDKGroup {
            SimulatedSDKs<Context>(ids: options.initialIDs(Context.kind), endpoint: endpoint, transport: transport,
                                   events: events, refreshMargin: options.refreshMargin, clock: deviceClock, verifier: verifier,
                                   fleetEngine: fleetEngine, logic: options.providerLogic)
        }
        let consumers: any SDKGroup, drivers: any SDKGroup
        switch solution {
        case .onDemand:
            consumers = group(TripAuthorizationContext.self, consumer)
            drivers = group(VehicleAuthorizationContext.self, driver)
        case .lastMile:
            consumers = group(DeliveryConsumerAuthorizationContext.self, consumer)
            drivers = group(DeliveryDriverAuthorizationContext.self, driver)
        }
        return BackendSession(server: server, events: events, solution: solution, consumers: consumers, drivers: drivers,
                              deviceClock: deviceClock, fleetEngine: fleetEngine,
                              consumerEndpoint: consumer, driverEndpoint: driver, transport: transport, roles: options.roles)
    }

    /// The group on `role`'s side.
    func group(_ role: ProviderKind.Role) -> any SDKGroup { role == .consumer ? consumers : drivers }

    /// Runs both groups' location-update loops until the returned task is cancelled, each side's
    /// first calls spread over the same `ramp`.
    func runUpdateLoops(interval: TimeInterval, callers: Int, ramp: FleetRamp) -> Task<Void, Never> {
        let (consumers, drivers, roles) = (self.consumers, self.drivers, self.roles)
        let clock = SystemClock()
        return Task {
            async let a: Void = roles.contains(.consumer) ? consumers.run(interval: interval, callers: callers, ramp: ramp, clock: clock) : ()
            async let b: Void = roles.contains(.driver) ? drivers.run(interval: interval, callers: callers, ramp: ramp, clock: clock) : ()
            _ = await (a, b)
        }
    }

    /// SDKs that made their first call, and all the SDKs that run (the sides `--only` leaves).
    func startedSDKs() async -> (started: Int, total: Int) {
        var started = 0, total = 0
        for role in roles {
            started += await group(role).started
            total += await group(role).count
        }
        return (started, total)
    }

    /// One line for a header: where tokens come from, and through which proxy.
    var backendDescription: String {
        if server != nil, let url = URL(string: consumerEndpoint.urlTemplate), let port = url.port {
            return "embedded on 127.0.0.1:\(port)"
        }
        let templates = roles.map { ($0 == .consumer ? consumerEndpoint : driverEndpoint).urlTemplate }
        let backends = templates.map(SecretRedactor.redact).joined(separator: " | ")
        return proxyDescription(templates).map { backends + " via proxy " + $0 } ?? backends
    }

    /// One line for `watch`'s start: where the SDKs' Fleet Engine calls go, and how often.
    func fleetEngineDescription(sdks: Int, asked: TimeInterval) -> String {
        guard let target = fleetEngine else { return "Fleet Engine: no calls (--no-fleet-engine, or a backend of your own without --fleet-engine)" }
        let place = server != nil && target.base.host == "127.0.0.1" ? "the embedded emulator" : SecretRedactor.redact(target.base.absoluteString)
        var text = "Fleet Engine: \(place), providers/\(target.provider)\(target.writes ? "" : ", read-only"), every \(String(format: "%g s", target.interval)) per SDK"
        if target.interval > asked {
            text += " (\(sdks) SDKs: stretched from \(String(format: "%g s", asked)) to stay within \(Int(FleetEngineTarget.maximumRate)) calls a second)"
        }
        return text
    }

    /// The proxies the backend URLs go through (redacted), nil when they all go direct.
    private func proxyDescription(_ templates: [String]) -> String? {
        var used: [String] = []
        for template in templates {
            let bare = template.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
            if let url = URL(string: bare), let server = transport.proxy.server(for: url), !used.contains(server.display) {
                used.append(server.display)
            }
        }
        return used.isEmpty ? nil : used.joined(separator: ", ")
    }

    func stop() async {
        events.finish()
        await server?.stop()
        await transport.shutdown()
    }
}
