import NIOCore

/// Closes a channel when its `IdleStateHandler` says nothing moved for its time: a host or a
/// backend that goes quiet holds no connection of the proxy for ever.
final class CloseWhenIdle: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}

extension ChannelPipeline.SynchronousOperations {
    /// An idle timeout of `idle` on every channel the proxy opens, on either side.
    func addIdleClose(_ idle: TimeAmount) throws {
        try addHandler(IdleStateHandler(allTimeout: idle))
        try addHandler(CloseWhenIdle())
    }
}
