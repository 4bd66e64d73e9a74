import NIOCore
import NIOHTTP1

/// The upstream side of one exchange: hands each part of the answer to the client connection
/// that took the connection from the pool (`owner`, on the same event loop, so the calls are
/// direct). While the connection waits in the pool it has no owner: anything the upstream sends
/// then is out of turn and closes it, as does the upstream read timeout (an idle connection
/// lives that long, as nginx's upstream `keepalive_timeout`).
final class UpstreamAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// The client connection whose exchange this connection carries; nil while idle.
    var owner: TapConnectionHandler? {
        didSet { if owner != nil { lastActivity = .now() } }
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
        guard owner != nil else {
            context.close(promise: nil)
            return
        }
        // The idle timer counts from the last read, which may be older than this exchange.
        let due = lastActivity + readTimeout
        if due <= .now() {
            owner?.upstreamIdle()
        } else {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(deadline: due) { handler.value.checkIdle(due: due) }
        }
    }

    private func checkIdle(due: NIODeadline) {
        // A read or a new exchange since moved the deadline on: the idle timer will look again.
        guard lastActivity + readTimeout <= due else { return }
        owner?.upstreamIdle()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        owner?.upstreamFailed(error)
        context.close(promise: nil)
    }
}
