import FleetAuth
import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

/// The embedded backend: mints Fleet Engine tokens over HTTP on loopback, publishes its key
/// as JWKS, and fails on demand. The dashboard drives it in-process; `tokendash serve` runs it alone.
public actor EmbeddedTokenServer {
    public nonisolated let configuration: TokenServerConfiguration
    public nonisolated let minter: TokenMinter
    private let faultBoard = FaultBoard()
    private let counters = ServerCounters()
    private let handler: TokenRequestHandler
    private var server: HTTPServer?
    private var runTask: Task<Void, any Error>?
    public private(set) var baseURL: URL?

    /// Loads or generates the signing key; throws `TokenServerError` for a bad configuration or key.
    public init(configuration: TokenServerConfiguration = TokenServerConfiguration()) async throws {
        try await self.init(configuration: configuration, key: SigningKey.load(configuration.signingKey))
    }

    /// Serves with a key already loaded, ignoring `configuration.signingKey`: lets a restart keep
    /// its `kid`, and tests share one key instead of generating one per server.
    public init(configuration: TokenServerConfiguration, key: SigningKey) async throws {
        try configuration.validate()
        let minter = await TokenMinter(
            key: key, issuer: key.accountEmail ?? configuration.issuer, lifetime: configuration.lifetime)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let jwksBody = try encoder.encode(try minter.jwks)
        self.configuration = configuration
        self.minter = minter
        self.handler = TokenRequestHandler(minter: minter, faults: faultBoard, counters: counters, jwksBody: jwksBody)
    }

    /// Binds and starts serving; returns the base URL, e.g. `http://127.0.0.1:54321`.
    /// Calling it again while running returns the same URL.
    @discardableResult
    public func start() async throws -> URL {
        if let baseURL { return baseURL }
        let host = configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let server: HTTPServer
        do {
            // The handler timeout bounds the latency fault; keep it above any delay a demo would ask for.
            if bare.contains(":") {
                server = HTTPServer(address: try .inet6(ip6: bare, port: configuration.port), timeout: 60, pool: NoDelaySocketPool(), logger: .disabled, handler: handler)
            } else {
                server = HTTPServer(address: try .inet(ip4: bare, port: configuration.port), timeout: 60, pool: NoDelaySocketPool(), logger: .disabled, handler: handler)
            }
        } catch {
            throw TokenServerError.invalidHost(configuration.host)
        }
        let runTask = Task { try await server.run() }
        try await Self.waitUntilListening(server, runTask: runTask, address: "\(configuration.host):\(configuration.port)")
        let port: UInt16
        switch await server.listeningAddress {
        case .ip4(_, let p)?: port = p
        case .ip6(_, let p)?: port = p
        default:
            await server.stop()
            throw TokenServerError.bindFailed(address: configuration.host, reason: "no listening address")
        }
        let urlHost = bare.contains(":") ? "[\(bare)]" : bare
        guard let url = URL(string: "http://\(urlHost):\(port)") else {
            await server.stop()
            throw TokenServerError.invalidHost(configuration.host)
        }
        self.server = server
        self.runTask = runTask
        self.baseURL = url
        return url
    }

    /// Stops listening, gives requests in progress `gracePeriod` seconds to finish, then closes
    /// every connection. Safe to call when not running.
    public func stop(gracePeriod: TimeInterval = 0.25) async {
        guard let server else { return }
        self.server = nil
        baseURL = nil
        // FlyingFox waits out the whole timeout even when nothing is in flight, so keep it short.
        await server.stop(timeout: gracePeriod)
        runTask?.cancel()
        _ = try? await runTask?.value
        runTask = nil
    }

    public var isRunning: Bool { server != nil }

    /// Switches `fault` on for `target`'s requests, or off with nil. Takes effect on the next request.
    public func setFault(_ fault: ServerFault?, for target: FaultTarget) {
        faultBoard.set(fault, for: target)
    }

    public func clearFaults() { faultBoard.clear() }

    public func faults() -> [ProviderKind: ServerFault] { faultBoard.all }

    public func stats() -> ServerStats { counters.snapshot }

    /// The public key as served at `/.well-known/jwks.json`.
    public nonisolated var jwks: JSONWebKeySet {
        get throws { try minter.jwks }
    }

    /// The URL template of a token route, for a provider's `TokenEndpoint`.
    public func endpoint(_ kind: ProviderKind) -> TokenEndpoint? {
        baseURL.map { TokenEndpoint.sampleBackend(kind, base: $0.absoluteString) }
    }

    /// Waits until the server listens, or fails as soon as `run()` does (a taken port, say)
    /// instead of waiting out FlyingFox's listening timeout.
    private static func waitUntilListening(_ server: HTTPServer, runTask: Task<Void, any Error>, address: String) async throws {
        let outcome = StartupOutcome()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            outcome.install(continuation)
            Task {
                do { try await server.waitUntilListening(timeout: 10); outcome.resolve(.success(())) } catch {
                    outcome.resolve(.failure(TokenServerError.bindFailed(address: address, reason: "did not start listening")))
                }
            }
            Task {
                do {
                    try await runTask.value
                    outcome.resolve(.failure(TokenServerError.bindFailed(address: address, reason: "server stopped at once")))
                } catch {
                    outcome.resolve(.failure(TokenServerError.bindFailed(address: address, reason: Self.reason(error))))
                }
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if case .failed(_, let errno, let message)? = error as? SocketError {
            return errno == EADDRINUSE ? "address already in use" : message
        }
        return "\(error)"
    }
}

/// Resumes a continuation once, with whichever result arrives first.
private final class StartupOutcome: Sendable {
    // Guards the continuation, taken by the first result; later results are dropped.
    private let continuation = Mutex<CheckedContinuation<Void, any Error>?>(nil)

    func install(_ c: CheckedContinuation<Void, any Error>) { continuation.withLock { $0 = c } }

    func resolve(_ result: Result<Void, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}
