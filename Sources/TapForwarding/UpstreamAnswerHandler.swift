import NIOCore
import NIOHTTP1

/// The upstream side of one client connection: hands each part of the answer to the client side
/// (`TapConnectionHandler`), which lives on the same event loop, so the calls are direct.
final class UpstreamAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let owner: TapConnectionHandler

    init(owner: TapConnectionHandler) { self.owner = owner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): owner.answerHead(head)
        case .body(let buffer): owner.answerBody(buffer)
        case .end(let trailers): owner.answerEnd(trailers, upstream: context.channel)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) { owner.answerReadComplete() }

    func channelInactive(context: ChannelHandlerContext) {
        owner.upstreamClosed(context.channel)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            owner.upstreamIdle(context.channel)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        owner.upstreamFailed(error)
        context.close(promise: nil)
    }
}
