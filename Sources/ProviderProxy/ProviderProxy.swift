import Faults
import Foundation
import NIOCore
import NIOPosix
import ProviderEvents
import ProviderVocabulary
import ProxyKit
import Synchronization
import TokenReading

/// tokendash's loopback forward proxy in front of one source provider's host (`--driver-source`):
/// the host's `http_proxy` and `https_proxy` name it, so every request the customer's class makes
/// passes here. Each exchange becomes a `backend_request` event in the provider's log (a plain-http
/// request's URL, status, latency and size; a tunnel's host, bytes and time), and the fault
/// switched on for the provider's kind acts here, whatever the backend.
///
/// What it forwards is what came, byte for byte, apart from the headers meant for a proxy
/// (`Proxy-*`, `Connection`: one exchange per connection). Reading the answer never changes it:
/// an answer it cannot read is forwarded whole and logged when the connection ends.
public final class ProviderProxy: Sendable {
    /// The bounds of what one host can make the proxy hold.
    public struct Limits: Sendable {
        /// A request's head must arrive within this.
        public var headTimeout: TimeAmount = .seconds(10)
        /// A connection on either side with nothing moving for this long is closed.
        public var idle: TimeAmount = .seconds(60)
        public var connectTimeout: TimeAmount = .seconds(10)
        /// Connections from the host at once; more are closed at once.
        public var connections = 64

        public init() {}
    }

    public let port: Int
    /// The fault switched on for this provider's kind, read on every request.
    public let faults: ProxyFaultSlot
    private let listener: any Channel
    private let accepting: Task<Void, Never>
    private let shared: Shared

    /// `http://127.0.0.1:PORT`: what the host's proxy variables say.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Listens on 127.0.0.1, on a port the system picks.
    /// - Parameters:
    ///   - upstream: the user's own proxy settings, which the proxy's connections to backends honour.
    ///   - events: where each exchange is published, as an event of `kind`.
    public static func start(
        kind: ProviderKind, upstream: ProxySettings, faults: ProxyFaultSlot = ProxyFaultSlot(),
        events: EventBroadcaster, clock: any SleepingClock = SystemClock(),
        limits: Limits = Limits()
    ) async throws -> ProviderProxy {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addIdleClose(limits.idle)
                    // Closed when dropped (NIO's deprecated spelling of that choice): a connection
                    // accepted just as the proxy stops reaches a listener whose stream has ended and
                    // is dropped unread. Wrapped the other way, its unfinished writer traps in NIO
                    // (seen when a client connected as the session stopped).
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(synchronouslyWrapping: channel)
                }
            }
        guard let port = server.channel.localAddress?.port else {
            throw FleetAuthError.other("tokendash's proxy got no port")
        }
        let connector = UpstreamConnector(settings: upstream, connectTimeout: limits.connectTimeout, idle: limits.idle)
        let shared = Shared(
            kind: kind, events: events, clock: clock, faults: faults, upstream: connector, limits: limits)
        return ProviderProxy(server: server, port: port, shared: shared)
    }

    private init(server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, port: Int, shared: Shared) {
        self.port = port
        self.shared = shared
        faults = shared.faults
        listener = server.channel
        accepting = Task {
            try? await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask { await ProxyExchange(shared: shared).serve(connection) }
                    }
                }
            }
        }
    }

    /// The SDK's current ID, which the exchanges from now on are logged under.
    public func announce(_ id: String) { shared.currentID.withLock { $0 = id } }

    /// What the last token answer through the proxy said of its expiry (field and number), for
    /// the sentence that explains a token kept past its `exp`; nil before one, or for a tunnel.
    public func backendExpiry() -> BackendExpiry? { shared.lastExpiry.withLock { $0 } }

    /// Closes the listener and every connection; a request held by the latency fault ends too.
    public func stop() async {
        accepting.cancel()
        try? await listener.close()
        await shared.open.closeAll()
        await accepting.value
    }

    /// What the connections share.
    final class Shared: Sendable {
        let kind: ProviderKind
        let events: EventBroadcaster
        let clock: any SleepingClock
        let faults: ProxyFaultSlot
        let upstream: UpstreamConnector
        let limits: Limits
        // The ID the SDK is on; written by announce, read when an exchange is published.
        let currentID = Mutex("")
        // What the backend's last token answer said of its expiry; written as an answer passes.
        let lastExpiry = Mutex<BackendExpiry?>(nil)
        // Every channel still open on either side, so stop() ends them and the count is bounded.
        let open = OpenChannels()

        init(
            kind: ProviderKind, events: EventBroadcaster, clock: any SleepingClock, faults: ProxyFaultSlot,
            upstream: UpstreamConnector, limits: Limits
        ) {
            self.kind = kind
            self.events = events
            self.clock = clock
            self.faults = faults
            self.upstream = upstream
            self.limits = limits
        }

        func publish(_ exchange: BackendExchange) {
            let id = currentID.withLock { $0 }
            events.publish(ProviderEvent(time: clock.now(), provider: kind, id: id, kind: .backendRequest(exchange)))
        }
    }
}
