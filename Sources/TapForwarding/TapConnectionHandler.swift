import Foundation
import HTTPTransport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ProxyKit

/// One client connection through the tap: each request goes upstream as it came (hop-by-hop
/// headers aside) over one upstream connection kept alive beside it, and each part of the answer
/// goes back as it arrives, flushed with every read, so a slow or stalled body reaches the client
/// exactly as far as the upstream sent it. The exchange is reported after its answer was written:
/// reading it never holds the client up. SwiftNIO's pipelining handler in front hands over one
/// request at a time.
final class TapConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let upstream: Upstream
    private let limits: TapLimits
    private let gauge: ForwardingGauge
    /// Whether reading the upstream is paused until the client can take more of the answer.
    private var upstreamPaused = false
    /// Nil for the bare proxy (the bench's baseline): nothing is captured or reported.
    private let report: (@Sendable (TapExchange) -> Void)?
    private var context: ChannelHandlerContext?
    private var upstreamChannel: (any Channel)?
    private var connecting = false
    private var pending: [HTTPClientRequestPart] = []
    private var capture: ExchangeCapture?
    /// The request was refused here (413): its remaining parts are dropped.
    private var refusing = false
    /// The upstream's answer asked to close its connection after it.
    private var upstreamCloses = false

    init(
        upstream: Upstream, limits: TapLimits, gauge: ForwardingGauge = ForwardingGauge(),
        report: (@Sendable (TapExchange) -> Void)?
    ) {
        self.gauge = gauge
        self.upstream = upstream
        self.limits = limits
        self.report = report
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    // MARK: the client's request

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            refusing = false
            capture = ExchangeCapture(head: head, time: report == nil ? Date(timeIntervalSince1970: 0) : Date())
            if head.headers.count > limits.maxHeaderFields {
                refuse(
                    .requestHeaderFieldsTooLarge,
                    "request head with \(head.headers.count) header fields, over \(limits.maxHeaderFields)")
                return
            }
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limits.maxBodyBytes {
                refuse(.payloadTooLarge, "request body over \(limits.maxBodyBytes) bytes")
                return
            }
            upstreamCloses = false
            var forwarded = HTTPRequestHead(
                version: .http1_1, method: head.method, uri: upstream.target(head.uri),
                headers: HopByHop.removed(from: head.headers))
            if upstream.absoluteForm, let credential = upstream.proxy?.basicCredential {
                forwarded.headers.replaceOrAdd(name: "proxy-authorization", value: credential)
            }
            // Upstream always speaks HTTP/1.1, which needs a Host an HTTP/1.0 client may leave out.
            if head.version == .http1_0, !forwarded.headers.contains(name: "host") {
                forwarded.headers.add(name: "host", value: upstream.host)
            }
            if head.method == .GET || head.method == .HEAD { capture?.forwarded = forwarded }
            send(.head(forwarded))
        case .body(let buffer):
            guard !refusing else { return }
            capture?.requestBytes += buffer.readableBytes
            capture?.forwarded = nil
            if let bytes = capture?.requestBytes, bytes > limits.maxBodyBytes {
                refuse(.payloadTooLarge, "request body over \(limits.maxBodyBytes) bytes")
                return
            }
            send(.body(.byteBuffer(buffer)))
        case .end(let trailers):
            guard !refusing else { return }
            capture?.requestEnded = true
            send(.end(trailers))
            upstreamChannel?.flush()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let capture, report != nil {
            report?(capture.exchange(.cutShort(reason: "the client went away before the answer ended")))
        }
        capture = nil
        upstreamChannel?.close(promise: nil)
        upstreamChannel = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Waiting for the upstream is not the client's idleness: the upstream's own timeout covers it.
        if capture == nil || refusing { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func send(_ part: HTTPClientRequestPart) {
        if let channel = upstreamChannel, channel.isActive, !connecting {
            channel.write(part, promise: nil)
            return
        }
        pending.append(part)
        if !connecting { connect() }
    }

    private func connect() {
        guard let context else { return }
        connecting = true
        upstreamChannel = nil
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let upstream = upstream
        let limits = limits
        // Through a tunnel, TLS and HTTP start once the proxy has said 2xx to the CONNECT.
        let tunnel = upstream.absoluteForm ? nil : upstream.proxy
        let established = tunnel.map { _ in context.eventLoop.makePromise(of: HTTPResponseHead.self) }
        @Sendable func addHandlers(_ channel: any Channel) throws {
            let sync = channel.pipeline.syncOperations
            if let tls = upstream.tls {
                try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: upstream.serverName))
            }
            try sync.addHTTPClientHandlers()
            try sync.addHandler(IdleStateHandler(readTimeout: limits.upstreamReadTimeout))
            try sync.addHandler(UpstreamAnswerHandler(owner: bound.value))
        }
        ClientBootstrap(group: context.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
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
            .whenComplete { result in
                // A connection that failed before its tunnel was asked for settles the tunnel too.
                if case .failure(let error) = result { established?.fail(error) }
                bound.value.connected(result)
            }
    }

    private func connected(_ result: Result<any Channel, any Error>) {
        connecting = false
        switch result {
        case .success(let channel):
            guard context != nil, capture != nil || !pending.isEmpty else {
                channel.close(promise: nil)
                return
            }
            upstreamChannel = channel
            upstreamPaused = false
            for part in pending { channel.write(part, promise: nil) }
            pending = []
            channel.flush()
        case .failure(let error):
            pending = []
            noAnswer(.badGateway, Self.describe(error, upstream: upstream))
        }
    }

    // MARK: the upstream's answer

    func answerHead(_ head: HTTPResponseHead) {
        guard let context, var capture else { return }
        // 1xx answers are SwiftNIO's to handle; only the final one is relayed.
        guard head.status.code >= 200 else { return }
        upstreamCloses = !head.isKeepAlive
        capture.status = Int(head.status.code)
        if report != nil {
            // Only those the reader reads, found by SwiftNIO's case-blind lookup: the rest were
            // lower-cased and hashed for nothing on every answer forwarded, then handed to another thread.
            for name in TapExchange.readHeaders {
                if let value = head.headers.first(name: name) { capture.headers[name] = value }
            }
        }
        var headers = HopByHop.removed(from: head.headers)
        // An HTTP/1.0 client cannot take a chunked body: the end of the connection frames it instead.
        if capture.version == .http1_0, !headers.contains(name: "content-length") { capture.clientKeepsAlive = false }
        if !capture.clientKeepsAlive {
            headers.add(name: "connection", value: "close")
        } else if capture.version == .http1_0 {
            headers.add(name: "connection", value: "keep-alive")
        }
        capture.headSent = true
        self.capture = capture
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: capture.version, status: head.status, headers: headers))),
            promise: nil)
    }

    func answerBody(_ buffer: ByteBuffer) {
        guard let context, capture != nil else { return }
        if report != nil { capture?.keep(buffer) }
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        if let bytes = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes) { gauge.buffered(bytes) }
        // Backpressure: a client slower than the upstream stops the reading of the upstream
        // (its kernel buffers then fill and TCP slows the upstream), so an answer is held in
        // memory only up to the client channel's high-water mark and one read more.
        if !context.channel.isWritable { pauseUpstream() }
    }

    private func pauseUpstream() {
        guard !upstreamPaused, let channel = upstreamChannel else { return }
        upstreamPaused = true
        gauge.paused()
        try? channel.syncOptions?.setOption(.autoRead, value: false)
    }

    private func resumeUpstream() {
        guard upstreamPaused else { return }
        upstreamPaused = false
        // Turning autoRead back on reads at once.
        try? upstreamChannel?.syncOptions?.setOption(.autoRead, value: true)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { resumeUpstream() }
        context.fireChannelWritabilityChanged()
    }

    func answerReadComplete() { context?.flush() }

    func answerEnd(_ trailers: HTTPHeaders?, upstream channel: any Channel) {
        guard let context, let capture else { return }
        self.capture = nil
        let keep = capture.clientKeepsAlive
        context.writeAndFlush(wrapOutboundOut(.end(trailers))).whenComplete { [context] _ in
            if !keep { context.close(promise: nil) }
        }
        if upstreamCloses {
            channel.close(promise: nil)
            if upstreamChannel === channel { upstreamChannel = nil }
        }
        report?(capture.exchange(.answered))
    }

    func upstreamClosed(_ channel: any Channel) {
        guard upstreamChannel === channel else { return }
        upstreamChannel = nil
        guard var capture else { return }
        if capture.headSent {
            cutShort("the upstream closed the connection before the answer ended")
        } else if !capture.retried, capture.requestEnded, let head = capture.forwarded, !connecting {
            // A kept-alive connection the upstream closed as the request went out (its idle
            // timeout): a body-less GET or HEAD is sent once more on a new one, as nginx does.
            capture.retried = true
            self.capture = capture
            pending = [.head(head), .end(nil)]
            connect()
        } else {
            noAnswer(.badGateway, "upstream \(upstream.host):\(upstream.port) closed the connection without answering")
        }
    }

    func upstreamIdle(_ channel: any Channel) {
        guard let capture, upstreamChannel === channel else {
            channel.close(promise: nil)
            return
        }
        upstreamChannel = nil
        channel.close(promise: nil)
        if capture.headSent {
            cutShort("the upstream stalled for \(TapLimits.said(limits.upstreamReadTimeout)) mid-answer")
        } else {
            noAnswer(
                .gatewayTimeout,
                "upstream \(upstream.host):\(upstream.port) did not answer within \(TapLimits.said(limits.upstreamReadTimeout))"
            )
        }
    }

    func upstreamFailed(_ error: any Error) {
        // The close that follows reports the exchange; the error only says why.
        lastUpstreamError = Self.describe(error, upstream: upstream)
    }

    private var lastUpstreamError: String?

    // MARK: answers of the tap's own

    /// The client gets a one-line answer of the tap's own, as a reverse proxy answers (502, 504).
    private func noAnswer(_ status: HTTPResponseStatus, _ reason: String) {
        guard let context, let capture else { return }
        self.capture = nil
        let reason = lastUpstreamError.map { reason + " (\($0))" } ?? reason
        lastUpstreamError = nil
        writeOwn(
            status, "tokendash tap: \(reason)\n", context: context, version: capture.version,
            keepAlive: capture.clientKeepsAlive)
        report?(capture.exchange(.noAnswer(reason: reason), status: Int(status.code)))
    }

    private func cutShort(_ reason: String) {
        guard let context, let capture else { return }
        self.capture = nil
        // The head is out: closing is the only way left to tell the client the answer is incomplete.
        context.close(promise: nil)
        report?(capture.exchange(.cutShort(reason: reason)))
    }

    private func refuse(_ status: HTTPResponseStatus, _ reason: String) {
        guard let context, let capture else { return }
        refusing = true
        self.capture = nil
        writeOwn(status, "tokendash tap: \(reason)\n", context: context, version: capture.version, keepAlive: false)
        upstreamChannel?.close(promise: nil)
        upstreamChannel = nil
        pending = []
    }

    private func writeOwn(
        _ status: HTTPResponseStatus, _ text: String, context: ChannelHandlerContext,
        version: HTTPVersion, keepAlive: Bool
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "text/plain; charset=utf-8")
        headers.add(name: "content-length", value: String(text.utf8.count))
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [context] _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }

    static func describe(_ error: any Error, upstream: Upstream) -> String {
        let name = "upstream \(upstream.host):\(upstream.port)"
        return "\(name): " + (ConnectionFailure.words(error, host: upstream.host) ?? "\(error)")
    }
}
