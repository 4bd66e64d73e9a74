import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import ProxyKit

/// A plain HTTP/1.1 connection to a proxy, for the request AsyncHTTPClient cannot make: an
/// absolute-form request (`GET http://host:port/path`, curl's way for http targets). The pipeline is AsyncHTTPClient's
/// own (`HTTP1Connection.start`): the same encoder, decoder and, for answers, the same
/// decompressor with the same limit, so a zip bomb fails here with the very error it fails
/// with on a direct request. Last comes `ProxyExchangeHandler`, which carries one exchange at a time.
enum ProxyChannel {
    /// Connects to `proxy`. `decompression` adds the response decompressor under that ratio.
    static func open(to proxy: ProxyServer, connectTimeout: TimeAmount, decompression: Int?) async throws -> any Channel
    {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(HTTPRequestEncoder())
                    try sync.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
                    if let decompression {
                        try sync.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(decompression)))
                    }
                    try sync.addHandler(ProxyExchangeHandler())
                }
            }
            .connect(host: proxy.host, port: proxy.port).get()
    }
}

/// One request written and its answer gathered, on the connection's event loop: the request's
/// parts in one flush, the answer's head and decoded body kept until its end, then handed over
/// whole. As AsyncHTTPClient runs its own exchanges, in a channel handler: on `NIOAsyncChannel`
/// each exchange hopped between the caller, a task of the connection's and the event loop for
/// every part, and the absolute-form fetch cost 1.1x-1.4x a tunnelled one's CPU.
final class ProxyExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Exchange
    typealias OutboundOut = HTTPClientRequestPart

    /// A request, and where its answer goes.
    struct Exchange: Sendable {
        let head: HTTPRequestHead
        let body: ByteBuffer?
        /// Decoded body bytes gathered at most: past them the answer is handed over as it stands
        /// (its reader refuses it for its size) and the connection closed, so nothing larger is buffered.
        let cap: Int
        let answer: EventLoopPromise<Answer>
    }

    /// What came back once the answer ended, failed after its head, or passed the cap.
    struct Answer: Sendable {
        let head: HTTPResponseHead
        let body: ByteBuffer
        /// What cut the answer short after its head: the connection closed, a decoding error.
        let failure: (any Error)?
        /// The answer was read to its end: the connection can carry another.
        let finished: Bool
    }

    /// No answer's head came back: the request may be sent again on another connection.
    struct Unanswered: Error {
        var underlying: (any Error)?
    }

    /// The connection closed after the head and before the answer's end.
    struct ClosedEarly: Error {}

    private var inFlight: Exchange?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard inFlight == nil, context.channel.isActive else {
            exchange.answer.fail(Unanswered())
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        inFlight = exchange
        head = nil
        body.clear()
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if let requestBody = exchange.body {
            context.write(wrapOutboundOut(.body(.byteBuffer(requestBody))), promise: nil)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenFailure { error in
            // Not sent whole: if nothing was answered, the request may go again elsewhere.
            guard self.head == nil else { return }
            self.fail(Unanswered(underlying: error))
            context.close(promise: nil)
        }
        written.futureResult.cascade(to: promise)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange = inFlight else {
            // An answer to nothing asked: the connection can no longer be trusted to pair them.
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let answerHead):
            // An interim answer (100 Continue) is not the answer.
            guard answerHead.status.code >= 200 || answerHead.status == .switchingProtocols else { return }
            head = answerHead
        case .body(var chunk):
            guard head != nil else { return }
            // A token's answer is most often one chunk: kept as it came, not copied.
            if body.readableBytes == 0 { body = chunk } else { body.writeBuffer(&chunk) }
            if body.readableBytes > exchange.cap { handOver(failure: nil, finished: false, context: context) }
        case .end:
            guard head != nil else { return }
            handOver(failure: nil, finished: true, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if head != nil {
            handOver(failure: error, finished: false, context: context)
        } else {
            fail(Unanswered(underlying: error))
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if head != nil {
            handOver(failure: ClosedEarly(), finished: false, context: context)
        } else {
            fail(Unanswered())
        }
        context.fireChannelInactive()
    }

    /// The answer so far goes to the exchange; one not read to its end closes the connection.
    private func handOver(failure: (any Error)?, finished: Bool, context: ChannelHandlerContext) {
        guard let exchange = inFlight, let answerHead = head else { return }
        inFlight = nil
        head = nil
        let gathered = body
        body = ByteBuffer()
        exchange.answer.succeed(Answer(head: answerHead, body: gathered, failure: failure, finished: finished))
        if !finished { context.close(promise: nil) }
    }

    private func fail(_ error: any Error) {
        guard let exchange = inFlight else { return }
        inFlight = nil
        head = nil
        body.clear()
        exchange.answer.fail(error)
    }
}
