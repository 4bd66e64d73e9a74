import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A `RouteResponder` (the token routes, the emulator, a `/metrics` page) over HTTP/1.1 on SwiftNIO. Each request is routed and signed by a task on its
/// connection's event loop (`EventLoopTaskExecutor`), so a token never crosses threads: the loop
/// that read the request signs the token and writes the answer. With one loop per core, the
/// server's CPU goes to signing and little else; a task hopping between the loops and Swift's
/// global executor, as Hummingbird's and FlyingFox's do, costs a tenth of a token's time more.
/// Generic over its routes, so `--metrics` serves its page on the same server code.
public actor NIORouteServer<Routes: RouteResponder> {
    private let routes: Routes
    private let host: String
    private let port: UInt16
    private let connections = OpenConnections()
    private var listener: (any Channel)?

    /// `host` is a numeric IPv4 or IPv6 address (no brackets).
    public init(routes: Routes, host: String, port: UInt16) {
        self.routes = routes
        self.host = host
        self.port = port
    }

    /// Binds and serves; returns the port bound (the one asked for, or a free one for 0).
    public func start() async throws(RouteServerError) -> UInt16 {
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
                    try channel.pipeline.syncOperations.addHandler(
                        RouteChannelHandler(routes: routes, connections: connections))
                }
            }
        let address = "\(host):\(port)"
        let listener: any Channel
        do {
            listener = try await bootstrap.bind(host: host, port: Int(port)).get()
        } catch let error as IOError {
            throw .bindFailed(
                address: address, reason: error.errnoCode == EADDRINUSE ? "address already in use" : "\(error)")
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
    public func stop(gracePeriod: TimeInterval) async {
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
}
