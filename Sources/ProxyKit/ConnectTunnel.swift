import NIOCore
import NIOHTTP1
import NetworkAddresses

/// A tunnel through a forward proxy to `target`, opened as curl opens it: `CONNECT host:port`
/// with `Host` and, from the proxy URL's credentials, Basic `Proxy-Authorization`. The request
/// is written by NIOHTTP1's encoder and the answer read by its decoder, which `add` puts in front
/// of this handler; on a 2xx all three leave the pipeline and the connection is the target's
/// (TLS or HTTP are added then). Any other answer fails `established` with the proxy's status
/// line quoted, as the 502 that follows says it.
public final class ConnectTunnel: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPClientResponsePart
    public typealias OutboundOut = HTTPClientRequestPart

    /// Why no tunnel: the proxy's answer (nil when it sent none) and the sentence for it.
    public struct Refused: Error, Sendable, CustomStringConvertible {
        public let description: String
        public let answer: HTTPResponseHead?
    }

    /// The one `CONNECT` request tokendash writes, for the tap, the provider's proxy and the
    /// transport's second look at a refused tunnel.
    public static func request(to target: HostPort, credential: String?) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: target.description)
        head.headers.add(name: "Host", value: target.description)
        if let credential { head.headers.add(name: "Proxy-Authorization", value: credential) }
        return head
    }

    /// Puts the encoder, the decoder and the tunnel on a channel's pipeline (in its initializer,
    /// before it connects). `proxy` names the proxy in sentences (`proxy 127.0.0.1:3128`). The
    /// future has the proxy's 2xx answer, by when the channel is the tunnel's.
    public static func add(
        to pipeline: ChannelPipeline.SynchronousOperations, target: HostPort, proxy: String, credential: String?,
        timeout: TimeAmount, on eventLoop: any EventLoop
    ) throws -> EventLoopFuture<HTTPResponseHead> {
        let encoder = HTTPRequestEncoder()
        // Nothing follows a 2xx until this side speaks; whatever did would go on to the tunnel's handlers.
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes))
        let tunnel = ConnectTunnel(
            request: request(to: target, credential: credential), target: target, proxy: proxy, timeout: timeout,
            promise: eventLoop.makePromise(), encoder: encoder, decoder: decoder)
        do {
            try pipeline.addHandler(encoder)
            try pipeline.addHandler(decoder)
            try pipeline.addHandler(tunnel)
        } catch {
            tunnel.finish(.failure(error))
            throw error
        }
        return tunnel.promise.futureResult
    }

    private let request: HTTPRequestHead
    private let target: HostPort
    private let proxy: String
    private let timeout: TimeAmount
    private let promise: EventLoopPromise<HTTPResponseHead>
    private let encoder: HTTPRequestEncoder
    private let decoder: ByteToMessageHandler<HTTPResponseDecoder>
    private var answer: HTTPResponseHead?
    private var deadline: Scheduled<Void>?
    private var sent = false
    /// Set once the proxy said 2xx and the handlers are leaving the pipeline.
    private var leaving = false
    /// Whether `promise` is settled: a timeout, a close and an error may each come after another.
    private var done = false

    private init(
        request: HTTPRequestHead, target: HostPort, proxy: String, timeout: TimeAmount,
        promise: EventLoopPromise<HTTPResponseHead>, encoder: HTTPRequestEncoder,
        decoder: ByteToMessageHandler<HTTPResponseDecoder>
    ) {
        self.request = request
        self.target = target
        self.proxy = proxy
        self.timeout = timeout
        self.promise = promise
        self.encoder = encoder
        self.decoder = decoder
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { send(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        send(context)
        context.fireChannelActive()
    }

    private func send(_ context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        let reason = "\(proxy) did not answer the CONNECT within \(Self.said(timeout))"
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            bound.value.finish(.failure(Refused(description: reason, answer: nil)))
            channel.close(promise: nil)
        }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            answer = head
            guard (200..<300).contains(head.status.code) else {
                let line = "\(head.version) \(head.status.code) \(head.status.reasonPhrase)"
                finish(
                    .failure(Refused(description: "\(proxy) refused the tunnel to \(target): \(line)", answer: head)))
                context.close(promise: nil)
                return
            }
        case .body:
            break
        case .end:
            guard let answer, !done else { return }
            leaving = true
            // The tunnel first, so that bytes the decoder forwards on leaving go on past it. The
            // decoder leaves on the next tick; only then may the tunnel's first bytes be written,
            // which it would take for HTTP.
            let sync = context.pipeline.syncOperations
            sync.removeHandler(context: context, promise: nil)
            sync.removeHandler(encoder, promise: nil)
            sync.removeHandler(decoder).assumeIsolated().whenComplete { _ in self.finish(.success(answer)) }
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        guard !leaving else { return }
        finish(.failure(Refused(description: "\(proxy) closed the connection before the tunnel was open", answer: nil)))
    }

    public func channelInactive(context: ChannelHandlerContext) {
        let reason = "\(proxy) closed the connection before the tunnel was open"
        finish(.failure(Refused(description: reason, answer: nil)))
        context.fireChannelInactive()
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    private func finish(_ result: Result<HTTPResponseHead, any Error>) {
        guard !done else { return }
        done = true
        deadline?.cancel()
        promise.completeWith(result)
    }

    /// `10 s`, or `200 ms` under a second (as tests shorten timeouts).
    static func said(_ amount: TimeAmount) -> String {
        amount.nanoseconds % 1_000_000_000 == 0
            ? "\(amount.nanoseconds / 1_000_000_000) s" : "\(amount.nanoseconds / 1_000_000) ms"
    }
}
