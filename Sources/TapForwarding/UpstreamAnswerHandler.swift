import NIOCore
import NIOHTTP1

/// Who an upstream connection hands its answer to: the client connection whose exchange it
/// carries (`TapConnectionHandler`), on the same event loop.
protocol UpstreamAnswerOwner: AnyObject {
    func answerHead(_ head: HTTPResponseHead)
    func answerBody(_ buffer: ByteBuffer)
    func answerEnd(_ trailers: HTTPHeaders?)
    func answerReadComplete()
    func upstreamClosed()
    /// The upstream sent nothing for the read timeout while the tap was reading it.
    func upstreamIdle()
    /// The read timeout came while reading was paused for the client: the upstream was not idle.
    func upstreamIdleHeld()
    func upstreamFailed(_ error: any Error)
}

/// The upstream side of one exchange: hands each part of the answer to the client connection
/// that took the connection from the pool (`owner`, on the same event loop, so the calls are
/// direct). While the connection waits in the pool it has no owner: anything the upstream sends
/// then is out of turn and closes it, as does the upstream read timeout (an idle connection
/// lives that long, as nginx's upstream `keepalive_timeout`).
final class UpstreamAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// The client connection whose exchange this connection carries; nil while idle.
    var owner: (any UpstreamAnswerOwner)? {
        didSet {
            paused = false
            if owner != nil { lastActivity = .now() }
        }
    }
    /// Reading is paused until the client takes more of the answer (backpressure). The upstream
    /// is not idle then, the client is, and the client's send timeout judges that: a paused
    /// upstream's read timeout does not count, and counts afresh from the resume, as nginx's
    /// `proxy_read_timeout` counts only between two reads nginx makes.
    var paused = false {
        didSet { if oldValue, !paused { lastActivity = .now() } }
    }
    private let readTimeout: TimeAmount
    /// The last read, or the exchange's start: an exchange's timeout counts from its own start,
    /// not from the reads before the connection waited in the pool.
    private var lastActivity = NIODeadline.now()

    init(readTimeout: TimeAmount) { self.readTimeout = readTimeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
        guard let owner else {
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head): owner.answerHead(head)
        case .body(let buffer): owner.answerBody(buffer)
        case .end(let trailers): owner.answerEnd(trailers)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) { owner?.answerReadComplete() }

    func channelInactive(context: ChannelHandlerContext) {
        owner?.upstreamClosed()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard let owner else {
            context.close(promise: nil)
            return
        }
        guard !paused else {
            owner.upstreamIdleHeld()
            return
        }
        // The idle timer counts from the last read, which may be older than this exchange.
        let due = lastActivity + readTimeout
        if due <= .now() {
            owner.upstreamIdle()
        } else {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(deadline: due) { handler.value.checkIdle(due: due) }
        }
    }

    private func checkIdle(due: NIODeadline) {
        // A read or a new exchange since moved the deadline on: the idle timer will look again.
        guard !paused, lastActivity + readTimeout <= due else { return }
        owner?.upstreamIdle()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        owner?.upstreamFailed(error)
        context.close(promise: nil)
    }
}
