import Foundation
import NIOCore
import NIOHTTP1

/// Reads requests off one connection and answers each through the routes, in a task on the
/// connection's own event loop. NIO's pipelining handler holds later requests back until the
/// answer to the current one has gone, so answers keep their order.
final class RouteChannelHandler<Routes: RouteResponder>: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: Routes
    private let connections: OpenConnections
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyTooLarge = false
    private var executor: EventLoopTaskExecutor?

    init(routes: Routes, connections: OpenConnections) {
        self.routes = routes
        self.connections = connections
    }

    func channelActive(context: ChannelHandlerContext) {
        guard connections.opened(context.channel) else {
            context.closeSendingFIN()
            return
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed(context.channel)
        context.fireChannelInactive()
    }

    /// A request that does not parse has had its 400 from NIO's error handler; the connection
    /// cannot be read further, so it closes (as does one that fails any other way).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.closeSendingFIN()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            bodyTooLarge = false
        case .body(let part):
            // Kept up to the limit only: a client cannot make the server hold more.
            if body.count + part.readableBytes <= RouteRequest.maximumBody {
                body.append(contentsOf: part.readableBytesView)
            } else {
                bodyTooLarge = true
            }
        case .end:
            guard let head = head.take() else { return }
            answer(head, context: context)
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound(context, eventLoop: loop)
        let routes = routes
        let connections = connections
        let executor = self.executor ?? EventLoopTaskExecutor.of(loop)
        self.executor = executor
        connections.began()
        let request = RouteRequest(
            method: head.method.rawValue, target: head.uri, authorization: head.headers.first(name: "Authorization"),
            body: body.isEmpty ? Data() : Data(body), bodyTooLarge: bodyTooLarge)
        body = []
        Task(executorPreference: executor) {
            let reply = await routes.respond(to: request)
            ResponseWriter.send(reply, for: head, on: bound, loop: loop, then: connections.ended)
        }
    }
}

/// Writes a route's answer on its connection's loop: the status line and headers, the body, and
/// the end in one flush; or closes the connection unanswered for the drop fault.
enum ResponseWriter {
    static func send(
        _ reply: RouteResponse, for request: HTTPRequestHead, on bound: NIOLoopBound<ChannelHandlerContext>,
        loop: any EventLoop, then done: @escaping @Sendable () -> Void
    ) {
        // Normally still on the loop, where the task ran.
        if loop.inEventLoop {
            write(reply, for: request, context: bound.value)
            done()
        } else {
            loop.execute {
                write(reply, for: request, context: bound.value)
                done()
            }
        }
    }

    private static func write(_ reply: RouteResponse, for request: HTTPRequestHead, context: ChannelHandlerContext) {
        if reply.dropsConnection {
            context.closeSendingFIN()
            return
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(reply.headers.count + 2)
        for (name, value) in reply.headers { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: String(reply.body.count))
        let keepAlive = request.isKeepAlive
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        } else if request.version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(
            version: request.version, status: HTTPResponseStatus(statusCode: reply.status), headers: headers)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(
            NIOAny(HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(bytes: reply.body)))),
            promise: nil)
        if keepAlive {
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        } else {
            let channel = context.channel
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in channel.closeSendingFIN()
            }
        }
    }
}

extension ChannelOutboundInvoker {
    /// Shuts the connection's sending side, then closes it. A bare close sends no FIN while a copy
    /// of the socket lives on in a child process (NIO accepts without SOCK_CLOEXEC, so a process
    /// spawned meanwhile inherits it); the shutdown reaches the peer whatever holds a copy.
    func closeSendingFIN() {
        close(mode: .output, promise: nil)
        close(mode: .all, promise: nil)
    }
}
