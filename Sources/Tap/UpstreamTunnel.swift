import HTTPTransport
import NIOCore

/// The `CONNECT host:port` that opens a tunnel through a forward proxy to an upstream, as curl
/// and today's transport open it (Basic `Proxy-Authorization` from the proxy URL's credentials).
/// The first handler of the upstream connection: it sends the request when the connection is up,
/// reads the proxy's answer head, and on a 2xx leaves the pipeline, after which the connection
/// is the upstream's own (TLS and HTTP are added then). Anything else fails `established` with
/// the proxy's status line, which the client's 502 quotes.
final class UpstreamTunnel: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Refused: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// A proxy's answer head is a few hundred bytes; past this it is not a proxy.
    static let headLimit = 16 * 1024

    private let proxy: ProxyServer
    private let target: String
    private let timeout: TimeAmount
    private let promise: EventLoopPromise<Void>
    private var answer = ""
    private var deadline: Scheduled<Void>?
    /// Whether `established` is settled: a timeout, a close and an error may each come after another.
    private var done = false

    var established: EventLoopFuture<Void> { promise.futureResult }

    init(proxy: ProxyServer, target: String, timeout: TimeAmount, promise: EventLoopPromise<Void>) {
        self.proxy = proxy
        self.target = target
        self.timeout = timeout
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        var request = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let credential = proxy.basicCredential { request += "Proxy-Authorization: \(credential)\r\n" }
        request += "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        let reason = "proxy \(proxy.address) did not answer the CONNECT within \(TapLimits.said(timeout))"
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            bound.value.finish(.failure(Refused(reason: reason)))
            channel.close(promise: nil)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        answer += bytes.readString(length: bytes.readableBytes) ?? ""
        guard let end = answer.range(of: "\r\n\r\n") else {
            if answer.utf8.count > Self.headLimit {
                fail(context, "proxy \(proxy.address) sent no answer head to the CONNECT")
            }
            return
        }
        let statusLine = answer[..<end.lowerBound].split(separator: "\r\n").first.map(String.init) ?? ""
        let code = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        guard let code, (200..<300).contains(code) else {
            fail(context, "proxy \(proxy.address) refused the tunnel to \(target): \(statusLine)")
            return
        }
        // Nothing follows a 2xx to a CONNECT until the tap speaks: the handler leaves, the tunnel stays.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        finish(.success(()))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(Refused(reason: "proxy \(proxy.address) closed the connection before the tunnel was open")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    private func fail(_ context: ChannelHandlerContext, _ reason: String) {
        finish(.failure(Refused(reason: reason)))
        context.close(promise: nil)
    }

    private func finish(_ result: Result<Void, any Error>) {
        guard !done else { return }
        done = true
        deadline?.cancel()
        promise.completeWith(result)
    }
}
