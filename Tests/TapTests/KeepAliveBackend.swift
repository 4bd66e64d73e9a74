import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A backend on 127.0.0.1 that keeps its connections alive, as a real one does (SwiftNIO's
/// HTTP/1.1 server), and counts them: what shows how many connections the tap holds to it. Each
/// request is answered with its path as the body; `/close` answers with `Connection: close` and
/// closes. With `hold`, no answer goes out until that many requests are waiting: a burst the tap
/// must carry on that many connections at once.
final class KeepAliveBackend: Sendable {
    struct Counts {
        /// Connections accepted so far, and open now.
        var accepted = 0
        var open = 0
        /// Request targets in arrival order.
        var paths: [String] = []
    }

    let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    // Guards the counts, written by the connections' event loops.
    private let state = Mutex(Counts())
    // Guards the answers waiting for `hold` requests, each to be run on its connection's loop.
    private let waiting = Mutex<[@Sendable () -> Void]>([])
    private let hold: Int

    var counts: Counts { state.withLock { $0 } }

    init(hold: Int = 0) async throws {
        self.hold = hold
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = Mutex<KeepAliveBackend?>(nil)
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let backend = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    backend.state.withLock {
                        $0.accepted += 1
                        $0.open += 1
                    }
                    channel.closeFuture.whenComplete { _ in backend.state.withLock { $0.open -= 1 } }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Answering(backend: backend))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
        box.withLock { $0 = self }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// Queues `answer` until `hold` requests wait, then runs them all; at once without `hold`.
    fileprivate func arrived(_ path: String, answer: @escaping @Sendable () -> Void) {
        state.withLock { $0.paths.append(path) }
        guard hold > 0 else { return answer() }
        let due = waiting.withLock { waiting -> [@Sendable () -> Void] in
            waiting.append(answer)
            guard waiting.count >= hold else { return [] }
            defer { waiting.removeAll() }
            return waiting
        }
        for answer in due { answer() }
    }

    private final class Answering: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let backend: KeepAliveBackend
        var path = ""

        init(backend: KeepAliveBackend) { self.backend = backend }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): path = head.uri
            case .body: break
            case .end:
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let path = path
                let loop = context.eventLoop
                backend.arrived(path) { loop.execute { bound.value.0.answer(path, context: bound.value.1) } }
            }
        }

        func answer(_ path: String, context: ChannelHandlerContext) {
            let closes = path == "/close"
            var headers = HTTPHeaders()
            headers.add(name: "content-length", value: String(path.utf8.count))
            if closes { headers.add(name: "connection", value: "close") }
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil
            )
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: path)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if closes { context.close(promise: nil) }
            }
        }
    }
}
