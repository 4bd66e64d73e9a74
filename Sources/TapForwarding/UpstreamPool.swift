import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ProxyKit

/// The upstream connections of one event loop, shared by its client connections as nginx's
/// upstream `keepalive` shares a worker's: a client connection takes one for one exchange, once
/// the request's body is whole, and gives it back when the answer has ended and the upstream did
/// not ask to close it. An idle client connection holds none.
///
/// When every open connection is busy, another is opened, as nginx does; only the idle ones are
/// capped (`TapLimits.upstreamKeepalive`), and one given back past the cap is closed. A hard cap
/// with a queue would shield a backend's connection limit better, but the tap is fail-open: it
/// must not make a client wait, or refuse it with a 503, where the backend itself would have
/// answered; and each open connection carries an exchange in flight, so the backend never holds
/// more of the tap's connections than requests it is answering, plus the idle cap.
///
/// Lives on its event loop; every call is made there.
final class UpstreamPool {
    let eventLoop: any EventLoop
    private let upstream: Upstream
    private let limits: TapLimits
    private let gauge: ForwardingGauge
    /// Idle connections, the most recently given back last: it is taken first, so the others
    /// reach the upstream read timeout and close when fewer are needed.
    private var idle: [UpstreamConnection] = []

    init(eventLoop: any EventLoop, upstream: Upstream, limits: TapLimits, gauge: ForwardingGauge) {
        self.eventLoop = eventLoop
        self.upstream = upstream
        self.limits = limits
        self.gauge = gauge
    }

    /// Hands `done` an idle connection at once, else a new one once it is connected; `fresh`
    /// always opens a new one (a retry after a kept one closed under its request).
    func take(fresh: Bool = false, _ done: @escaping (Result<UpstreamConnection, any Error>) -> Void) {
        while !fresh, let connection = idle.popLast() {
            gauge.idleChanged(by: -1)
            if connection.channel.isActive { return done(.success(connection)) }
        }
        let pool = NIOLoopBound(self, eventLoop: eventLoop)
        let done = NIOLoopBound(done, eventLoop: eventLoop)
        connect().whenComplete { result in
            done.value(result.flatMap { channel in Result { try pool.value.opened(channel) } })
        }
    }

    /// Back from an exchange whose answer ended: kept for the next one while the idle are fewer
    /// than the cap, else closed.
    func giveBack(_ connection: UpstreamConnection) {
        connection.answers.owner = nil
        // A paused answer ended: reading resumes, so the pool sees the upstream close it.
        try? connection.channel.syncOptions?.setOption(.autoRead, value: true)
        guard connection.channel.isActive, idle.count < limits.upstreamKeepalive else {
            connection.channel.close(promise: nil)
            return
        }
        connection.reused = true
        idle.append(connection)
        gauge.idleChanged(by: 1)
    }

    /// Closed, its exchange cut short or the upstream asking to close it.
    func discard(_ connection: UpstreamConnection) {
        connection.answers.owner = nil
        connection.channel.close(promise: nil)
    }

    private func closed(_ connection: UpstreamConnection) {
        gauge.openChanged(by: -1)
        if let index = idle.firstIndex(where: { $0 === connection }) {
            idle.remove(at: index)
            gauge.idleChanged(by: -1)
        }
    }

    private func opened(_ channel: any Channel) throws -> UpstreamConnection {
        let answers = try channel.pipeline.syncOperations.handler(type: UpstreamAnswerHandler.self)
        let connection = UpstreamConnection(channel: channel, answers: answers)
        gauge.openChanged(by: 1)
        let pool = NIOLoopBound(self, eventLoop: eventLoop)
        let closing = NIOLoopBound(connection, eventLoop: eventLoop)
        channel.closeFuture.whenComplete { _ in pool.value.closed(closing.value) }
        return connection
    }

    private func connect() -> EventLoopFuture<any Channel> {
        let upstream = upstream
        let limits = limits
        let eventLoop = eventLoop
        // Through a tunnel, TLS and HTTP start once the proxy has said 2xx to the CONNECT.
        let tunnel = upstream.absoluteForm ? nil : upstream.proxy
        let established = tunnel.map { _ in eventLoop.makePromise(of: HTTPResponseHead.self) }
        @Sendable func addHandlers(_ channel: any Channel) throws {
            let sync = channel.pipeline.syncOperations
            if let tls = upstream.tls {
                try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: upstream.serverName))
            }
            try sync.addHTTPClientHandlers()
            try sync.addHandler(IdleStateHandler(readTimeout: limits.upstreamReadTimeout))
            try sync.addHandler(UpstreamAnswerHandler(readTimeout: limits.upstreamReadTimeout))
        }
        return ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            // One read of at most 64 KiB each time the socket is readable: what bounds the answer
            // bytes a client connection holds past its high-water mark (`TapConnectionHandler.answerBody`).
            .channelOption(.maxMessagesPerRead, value: 1)
            // What the kernel holds of an answer the tap has paused, which SwiftNIO reads whole
            // when the upstream closes. Left to autotuning it grows to `tcp_rmem`'s maximum (32 MiB
            // on the machines we measured), all of it read into memory for a slow client.
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(Self.receiveBuffer))
            .channelOption(
                .recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: Self.maxRead)
            )
            .connectTimeout(limits.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let tunnel, let established else { return try addHandlers(channel) }
                    try ConnectTunnel.add(
                        to: channel.pipeline.syncOperations, target: upstream.authority,
                        proxy: "proxy \(tunnel.address)", credential: tunnel.basicCredential,
                        timeout: limits.upstreamReadTimeout, on: channel.eventLoop
                    ).cascade(to: established)
                }
            }
            .connect(host: upstream.proxy?.host ?? upstream.host, port: upstream.proxy?.port ?? upstream.port)
            .flatMap { channel in
                guard let established else { return channel.eventLoop.makeSucceededFuture(channel) }
                return established.futureResult.flatMapThrowing { _ in
                    try addHandlers(channel)
                    return channel
                }.flatMapErrorThrowing { error in
                    channel.close(promise: nil)
                    throw error
                }
            }
            .flatMapErrorThrowing { error in
                // A connection that failed before its tunnel was asked for settles the tunnel too.
                established?.fail(error)
                throw error
            }
    }

    /// The most one read of an upstream takes (NIO's default adaptive maximum, said here).
    static let maxRead = 64 * 1024
    /// The upstream socket's receive buffer as asked for; Linux doubles it for its bookkeeping
    /// (socket(7)) and holds less data than the doubled size, so a paused answer's close adds at
    /// most 64 KiB. The window is then about 32 KiB: 3 MB/s an upstream connection at a 10 ms
    /// round trip, a token backend's few KB in one.
    static let receiveBuffer = 32 * 1024
}
