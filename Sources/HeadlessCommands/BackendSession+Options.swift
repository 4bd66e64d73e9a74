import Fleet
import Foundation
import HTTPTransport
import LiveSession
import ProviderEvents
import ProviderHost
import ProviderProxy
import ProviderVocabulary
import ProxyKit
import Redaction
import TokenServer
import TokenSignatures

extension BackendSession {
    /// Starts the embedded server when no URLs were given, then builds the providers.
    /// `keepUnbuilt`: a source provider that did not build runs as one failing with the compiler's
    /// error (the dashboard's pane shows it); otherwise it ends the start (`watch` exits 2).
    /// When a part fails to start, what was started before it is stopped, the last first, before
    /// the error goes up. `listening` is told each listener's URL as it starts (the embedded
    /// server's, each loopback proxy's), and `startProxy` replaces `ProviderProxy.start`: tests.
    /// `observer` is told each of the session's parts as its stop begins (its command's teardown's).
    package static func start(
        _ options: SessionConfiguration, keepUnbuilt: Bool = false,
        observer: @escaping @Sendable (String) -> Void = { _ in },
        listening: @Sendable (URL) -> Void = { _ in },
        startServer: ServerStarter? = nil,
        startProxy: SourceProviderSetup.ProxyStarter? = nil
    ) async throws -> BackendSession {
        // Every header value is a secret from here on, wherever it shows up (a backend's 401
        // body quoting the request's Authorization header included).
        for header in options.headers { SecretRedactor.register(header.value) }
        var proxy = options.proxy
        // So are the proxy's password and credential: a proxy's 407 page may quote them.
        proxy.secrets.forEach(SecretRedactor.register)
        // The embedded server listens on loopback, where no proxy can reach it.
        if options.usesEmbeddedServer { proxy = proxy.bypassing(host: "127.0.0.1") }
        // Made first: a CA file that holds no certificate stops us before a server is started.
        // A fleet's phones each hold their own connection; one connection per SDK up to 256 keeps
        // a far backend from capping the ramp at 8 connections ÷ its latency (the window still
        // bounds the calls in flight).
        let transport = try HTTPClientTransport(
            trust: options.trust, proxy: proxy, connectionsPerHost: min(256, max(8, options.runningSDKs)),
            connectTimeout: options.timeout)
        let undo = Teardown(observer: observer)
        // An HTTPClient dropped without shutdown traps in debug builds.
        await undo.add("transport") { _ in await transport.shutdown() }
        let started = try await undo.starting {
            try await startParts(
                options, keepUnbuilt: keepUnbuilt, upstream: proxy, undo: undo,
                listening: listening, startServer: startServer ?? startEmbeddedServer, startProxy: startProxy)
        }
        // The run's end stops the parts with the steps that would have undone a failed start.
        return assemble(options, transport: transport, started: started, teardown: undo)
    }

    /// The embedded server (when no URLs were given) and the customer's classes' setup, each
    /// started part's stop added to `undo`; a build failure ends the start unless `keepUnbuilt`.
    private static func startParts(
        _ options: SessionConfiguration, keepUnbuilt: Bool, upstream: ProxySettings, undo: Teardown,
        listening: @Sendable (URL) -> Void, startServer: ServerStarter, startProxy: SourceProviderSetup.ProxyStarter?
    ) async throws -> StartedParts {
        var server: EmbeddedTokenServer?
        var base: String?
        if options.usesEmbeddedServer {
            let (embedded, url) = try await startServer(options, undo)
            listening(url)
            server = embedded
            base = url.absoluteString
        }
        let events = EventBroadcaster()
        let sources = try await SourceProviderSetup.prepare(
            options, server: server, solution: options.solution, events: events, upstream: upstream,
            startProxy: startProxy)
        for (kind, proxy) in sources.proxies.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if let url = URL(string: proxy.url) { listening(url) }
            await undo.add("\(kind) proxy") { _ in await proxy.stop() }
        }
        if !keepUnbuilt, !sources.failures.isEmpty { throw SourceBuildFailure(lines: sources.failures) }
        return StartedParts(server: server, base: base, sources: sources, events: events)
    }

    /// Starts the embedded server and puts its stop on the undo; the server (nil from a test's
    /// fake, which needs no socket) and its URL.
    package typealias ServerStarter =
        @Sendable (SessionConfiguration, Teardown) async throws -> (EmbeddedTokenServer?, URL)

    @Sendable private static func startEmbeddedServer(_ options: SessionConfiguration, undo: Teardown) async throws
        -> (EmbeddedTokenServer?, URL)
    {
        let embedded = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(
                lifetime: TimeInterval(options.lifetime), fleetEngineLog: options.fleetEngineLog))
        let url = try await embedded.start()
        await undo.add("embedded server") { _ in await embedded.stop() }
        return (embedded, url)
    }

    private struct StartedParts: Sendable {
        let server: EmbeddedTokenServer?
        let base: String?
        let sources: SourceProviderSetup
        let events: EventBroadcaster
    }

    /// The session over its started parts: endpoints, verifier, Fleet Engine target, pacing and
    /// each side's SDKs.
    private static func assemble(
        _ options: SessionConfiguration, transport: HTTPClientTransport, started: StartedParts, teardown: Teardown
    ) -> BackendSession {
        let (server, base, sources, events) = (started.server, started.base, started.sources, started.events)
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
        func group<Context: AuthorizationContext>(_: Context.Type, _ endpoint: TokenEndpoint) -> any SDKGroup {
            if let provider = sources.provider(Context.self, events: events) {
                return SimulatedSDKs<Context>(
                    ids: Array((options.initialIDs[Context.kind] ?? []).prefix(1)), providers: [provider],
                    transport: transport, events: events, clock: deviceClock, fleetEngine: fleetEngine,
                    fleetEngineBudget: pacing.fleetEngine)
            }
            return SimulatedSDKs<Context>(
                ids: options.initialIDs[Context.kind] ?? [], endpoint: endpoint, transport: transport,
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
            sourceLabels: sources.labels, sourceNotes: sources.notes, proxies: sources.proxies, pacing: pacing,
            teardown: teardown)
    }
}
