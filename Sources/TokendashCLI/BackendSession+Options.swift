import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import LiveSession
import ProviderHost
import ProviderProxy
import TokenServer
import TokenSignatures

extension BackendSession {
    /// Starts the embedded server when no URLs were given, then builds the providers.
    /// `keepUnbuilt`: a source provider that did not build runs as one failing with the compiler's
    /// error (the dashboard's pane shows it); otherwise it ends the start (`watch` exits 2).
    static func start(_ options: BackendOptions, keepUnbuilt: Bool = false) async throws -> BackendSession {
        // Every header value is a secret from here on, wherever it shows up (a backend's 401
        // body quoting the request's Authorization header included).
        for header in options.headers.compactMap(HTTPHeader.init(parsing:)) { SecretRedactor.register(header.value) }
        var proxy = try options.proxySettings()
        // So are the proxy's password and credential: a proxy's 407 page may quote them.
        proxy.secrets.forEach(SecretRedactor.register)
        // The embedded server listens on loopback, where no proxy can reach it.
        if options.usesEmbeddedServer { proxy = proxy.bypassing(host: "127.0.0.1") }
        // Made first: a CA file that holds no certificate stops us before a server is started.
        // A fleet's phones each hold their own connection; one connection per SDK up to 256 keeps
        // a far backend from capping the ramp at 8 connections ÷ its latency (the window still
        // bounds the calls in flight).
        let transport = try HTTPClientTransport(
            trust: options.trust, proxy: proxy, connectionsPerHost: min(256, max(8, options.runningSDKs)))
        var server: EmbeddedTokenServer?
        var base: String?
        if options.usesEmbeddedServer {
            do {
                let embedded = try await EmbeddedTokenServer(
                    configuration: TokenServerConfiguration(lifetime: TimeInterval(options.lifetime)))
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
        let keySet =
            options.jwks.map(KeySetLocation.init(argument:))
            ?? base.flatMap { URL(string: $0 + "/.well-known/jwks.json") }.map(KeySetLocation.url)
        let verifier = JWKSVerifier(keySet: keySet, transport: transport)
        let fleetEngine = options.fleetEngineTarget(embeddedBase: base, embeddedProject: server?.fleetEngineProject)
        let deviceClock = DeviceClock()
        let pacing = FleetPacing(
            ramp: options.ramp, total: options.runningSDKs, fetchTimeout: options.timeout,
            fleetEngineTimeout: fleetEngine?.timeout ?? options.timeout)
        let sources: SourceProviderSetup
        do {
            sources = try await SourceProviderSetup.prepare(
                options, server: server, solution: solution, events: events, upstream: proxy)
        } catch {
            await server?.stop()
            await transport.shutdown()
            throw error
        }
        if !keepUnbuilt, !sources.failures.isEmpty {
            for proxy in sources.proxies.values { await proxy.stop() }
            await server?.stop()
            await transport.shutdown()
            throw SourceBuildFailure(lines: sources.failures)
        }
        func group<Context: AuthorizationContext>(_: Context.Type, _ endpoint: TokenEndpoint) -> any SDKGroup {
            if let provider = sources.provider(Context.self, events: events) {
                return SimulatedSDKs<Context>(
                    ids: Array(options.initialIDs(Context.kind).prefix(1)), providers: [provider],
                    transport: transport, events: events, clock: deviceClock, fleetEngine: fleetEngine,
                    fleetEngineBudget: pacing.fleetEngine)
            }
            return SimulatedSDKs<Context>(
                ids: options.initialIDs(Context.kind), endpoint: endpoint, transport: transport,
                events: events, refreshMargin: options.refreshMargin, clock: deviceClock, verifier: verifier,
                fleetEngine: fleetEngine, fleetEngineBudget: pacing.fleetEngine, logic: options.providerLogic)
        }
        let consumers: any SDKGroup
        let drivers: any SDKGroup
        switch solution {
        case .onDemand:
            consumers = group(TripAuthorizationContext.self, consumer)
            drivers = group(VehicleAuthorizationContext.self, driver)
        case .lastMile:
            consumers = group(DeliveryConsumerAuthorizationContext.self, consumer)
            drivers = group(DeliveryDriverAuthorizationContext.self, driver)
        }
        return BackendSession(
            server: server, events: events, solution: solution, consumers: consumers, drivers: drivers,
            deviceClock: deviceClock, fleetEngine: fleetEngine,
            consumerEndpoint: consumer, driverEndpoint: driver, transport: transport, roles: options.roles,
            sourceLabels: sources.labels, sourceNotes: sources.notes, proxies: sources.proxies, pacing: pacing)
    }
}
