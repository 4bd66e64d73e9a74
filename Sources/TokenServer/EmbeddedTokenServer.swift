import Faults
import Foundation
import NetworkAddresses
import ProviderVocabulary
import RouteServer
import TokenJudging

/// The embedded backend: mints Fleet Engine tokens over HTTP on loopback, publishes its key
/// as JWKS, and fails on demand. The dashboard drives it in-process; `tokendash serve` runs it alone.
public actor EmbeddedTokenServer {
    public nonisolated let configuration: TokenServerConfiguration
    public nonisolated let minter: TokenMinter
    /// The emulator's export (`configuration.fleetEngineLog`): written out at each `stop`, closed
    /// by its owner, which says a failed write.
    public nonisolated let fleetEngineLog: FleetEngineLog?
    private let faultBoard = FaultBoard()
    private let counters = ServerCounters()
    private let settings: MintSettings
    private let routes: TokenRoutes
    private var listener: NIORouteServer<MeteredRoutes>?
    public private(set) var baseURL: URL?

    /// Loads or generates the signing key; throws `TokenServerError` for a bad configuration or key.
    public init(configuration: TokenServerConfiguration = TokenServerConfiguration()) async throws {
        try await self.init(configuration: configuration, key: SigningKey.load(configuration.signingKey))
    }

    /// `clock` is the server's time before `setClockOffset` (tests share a manual one with the providers).

    /// Serves with a key already loaded, ignoring `configuration.signingKey`: lets a restart keep
    /// its `kid`, and tests share one key instead of generating one per server.
    public init(configuration: TokenServerConfiguration, key: SigningKey, clock: any ProviderClock = SystemClock())
        async throws
    {
        try configuration.validate()
        let minter = await TokenMinter(
            key: key, issuer: key.accountEmail ?? configuration.issuer, lifetime: configuration.lifetime)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let jwksBody = try encoder.encode(try minter.jwks)
        self.configuration = configuration
        self.minter = minter
        let settings = MintSettings(clock: clock)
        self.settings = settings
        let log = try configuration.fleetEngineLog.map { path throws(TokenServerError) in try FleetEngineLog(path: path)
        }
        fleetEngineLog = log
        // Fleet Engine keeps Google's time: the clock without the backend's offset.
        let fleetEngine = await FleetEngineEmulator(
            key: key, account: minter.issuer, faults: faultBoard, clock: clock, log: log)
        self.routes = TokenRoutes(
            minter: minter, faults: faultBoard, counters: counters, jwksBody: jwksBody, settings: settings,
            fleetEngine: fleetEngine)
    }

    /// Binds and starts serving; returns the base URL, e.g. `http://127.0.0.1:54321`.
    /// Calling it again while running returns the same URL.
    @discardableResult
    public func start() async throws -> URL {
        if let baseURL { return baseURL }
        let host = configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        let bare = HostPort.bare(host)
        guard Self.isIPAddress(bare) else { throw TokenServerError.invalidHost(configuration.host) }
        let metered = MeteredRoutes(routes: routes, metrics: counters.metrics, faults: faultBoard)
        let listener = NIORouteServer(routes: metered, host: bare, port: configuration.port)
        let port: UInt16
        do {
            port = try await listener.start()
        } catch {
            // Said with the host as the user wrote it (`localhost`), not as it was bound.
            guard case .bindFailed(_, let reason) = error else { throw error }
            throw TokenServerError.bindFailed(address: "\(configuration.host):\(configuration.port)", reason: reason)
        }
        guard let url = URL(string: "http://\(HostPort(host: bare, port: Int(port)))") else {
            await listener.stop(gracePeriod: 0)
            throw TokenServerError.invalidHost(configuration.host)
        }
        self.listener = listener
        self.baseURL = url
        return url
    }

    /// Stops listening, gives requests in progress `gracePeriod` seconds to finish, then closes
    /// every connection. Safe to call when not running.
    public func stop(gracePeriod: TimeInterval = 0.25) async {
        guard let listener else { return }
        self.listener = nil
        baseURL = nil
        await listener.stop(gracePeriod: gracePeriod)
        fleetEngineLog?.flush()
    }

    public var isRunning: Bool { listener != nil }

    /// Switches `fault` on for `target`'s requests, or off with nil. Takes effect on the next
    /// request. `latencyMilliseconds` is the latency fault's delay.
    public func setFault(
        _ fault: Fault?, latencyMilliseconds: Int = Fault.defaultLatencyMilliseconds, for target: FaultTarget
    ) {
        faultBoard.set(fault.map { FaultSetting($0, latencyMilliseconds: latencyMilliseconds) }, for: target)
    }

    public func faults() -> [ProviderKind: FaultSetting] { faultBoard.all }

    /// The server's clock runs `seconds` ahead of its clock (negative: behind): minted `iat` and
    /// `exp` and the `Date` header all move, as on a backend whose clock is wrong. Held within
    /// ±1 day (`InputBounds.serverClockOffset`, as scenarios check it): the `Date` header and the
    /// claims are whole seconds, and no offset may take them past what an `Int` holds.
    public func setClockOffset(_ seconds: TimeInterval) {
        let bound = InputBounds.serverClockOffset
        settings.offset = seconds.isNaN ? 0 : min(bound, max(-bound, seconds))
    }

    public var clockOffset: TimeInterval { settings.offset }

    /// Tokens minted from now on live `seconds` (1...3600, Fleet Engine's range); nil goes back
    /// to the configured lifetime.
    public func setLifetime(_ seconds: TimeInterval?) throws(TokenServerError) {
        if let seconds, !(1...3600).contains(seconds) { throw .invalidLifetime(seconds) }
        settings.lifetime = seconds
    }

    /// The lifetime of tokens minted now.
    public var lifetime: TimeInterval { settings.lifetime ?? minter.lifetime }

    public func stats() -> ServerStats { counters.snapshot }

    /// The ID `/session/{kind}` mints for from now on: the current ID of the customer's provider
    /// of that kind, whose URL names no ID (Google's samples read none into it).
    public nonisolated func setSessionID(_ id: String, for kind: ProviderKind) { settings.setSessionID(id, for: kind) }

    /// The URL of `kind`'s session route, which the samples' `INSERT_YOUR_TOKEN_PROVIDER_URL` becomes.
    public func sessionURL(_ kind: ProviderKind) -> String? {
        baseURL.map { $0.absoluteString + "/session/" + kind.rawValue }
    }

    /// The public key as served at `/.well-known/jwks.json`.
    public nonisolated var jwks: JSONWebKeySet {
        get throws { try minter.jwks }
    }

    /// The emulator's project: `providers/{project}` in the SDKs' Fleet Engine calls.
    public nonisolated var fleetEngineProject: String {
        TokenRules.serviceAccountProject(minter.issuer) ?? "tokendash-demo"
    }

    /// The URL template of a token route, for a provider's `TokenEndpoint`.
    public func endpoint(_ kind: ProviderKind) -> TokenEndpoint? {
        baseURL.map { TokenEndpoint.sampleBackend(kind, base: $0.absoluteString) }
    }

    /// A numeric IPv4 or IPv6 address: the server binds no host names but `localhost`.
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
