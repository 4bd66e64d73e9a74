import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// `TokenRoutes` over HTTP/1.1 on SwiftNIO. Each request is routed and signed by a task on its
/// connection's event loop (`EventLoopTaskExecutor`), so a token never crosses threads: the loop
/// that read the request signs the token and writes the answer. With one loop per core, the
/// server's CPU goes to signing and little else; a task hopping between the loops and Swift's
/// global executor, as Hummingbird's and FlyingFox's do, costs a tenth of a token's time more.
actor NIORouteServer {
    private let routes: TokenRoutes
    private let host: String
    private let port: UInt16
    private let connections = OpenConnections()
    private var listener: (any Channel)?

    /// `host` is a numeric IPv4 or IPv6 address (no brackets).
    init(routes: TokenRoutes, host: String, port: UInt16) {
        self.routes = routes
        self.host = host
        self.port = port
    }

    /// Binds and serves; returns the port bound (the one asked for, or a free one for 0).
    func start() async throws(TokenServerError) -> UInt16 {
        let routes = routes
        let connections = connections
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Answers go out as soon as they are written, not after the client's delayed ACK.
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RouteChannelHandler(routes: routes, connections: connections))
                }
            }
        let address = "\(host):\(port)"
        let listener: any Channel
        do {
            listener = try await bootstrap.bind(host: host, port: Int(port)).get()
        } catch let error as IOError {
            throw .bindFailed(address: address, reason: error.errnoCode == EADDRINUSE ? "address already in use" : "\(error)")
        } catch {
            throw .bindFailed(address: address, reason: "\(error)")
        }
        guard let bound = listener.localAddress?.port else {
            try? await listener.close()
            throw .bindFailed(address: address, reason: "no listening address")
        }
        self.listener = listener
        return UInt16(bound)
    }

    /// Stops listening, gives requests in flight `gracePeriod` seconds, then closes every connection.
    func stop(gracePeriod: TimeInterval) async {
        guard let listener else { return }
        self.listener = nil
        try? await listener.close()
        let deadline = ContinuousClock.now + .milliseconds(Int(gracePeriod * 1000))
        while connections.requestsInFlight > 0, ContinuousClock.now < deadline {
            // Waiting out the grace period, not synchronisation: requests finish on their own loops.
            try? await Task.sleep(for: .milliseconds(5))
        }
        await connections.closeAll()
    }

    /// The connections open now and the requests being answered, for `stop`.
    final class OpenConnections: Sendable {
        // Guards the open channels by identity, written as connections open and close, and whether
        // the server has stopped (a connection accepted just before is closed as it opens).
        private let channels = Mutex<(open: [ObjectIdentifier: any Channel], stopped: Bool)>(([:], false))
        private let inFlight = Atomic<Int>(0)

        var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }
        func began() { inFlight.add(1, ordering: .relaxed) }
        func ended() { inFlight.subtract(1, ordering: .relaxed) }

        /// False once the server has stopped: the caller closes the connection.
        func opened(_ channel: any Channel) -> Bool {
            channels.withLock { state in
                if !state.stopped { state.open[ObjectIdentifier(channel)] = channel }
                return !state.stopped
            }
        }

        func closed(_ channel: any Channel) { channels.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) } }

        func closeAll() async {
            let open = channels.withLock { state in
                state.stopped = true
                return Array(state.open.values)
            }
            for channel in open {
                channel.closeSendingFIN()
                try? await channel.closeFuture.get()
            }
        }
    }
}
