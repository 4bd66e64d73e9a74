import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ProxyKit

/// One client connection through the tap. Each request is taken whole first, its body up to
/// `TapLimits.maxBodyBytes` (over it, 413 and nothing goes upstream, as nginx buffers a request
/// body before it connects); then it goes upstream as it came (hop-by-hop headers aside, a body
/// framed by its length) over a connection taken from the event loop's pool for this one
/// exchange, and each part of the answer goes back as it arrives, flushed with every read, so a
/// slow or stalled body reaches the client exactly as far as the upstream sent it. The exchange
/// is reported after its answer was written: reading it never holds the client up. SwiftNIO's
/// pipelining handler in front hands over one request at a time.
final class TapConnectionHandler: ChannelInboundHandler, UpstreamAnswerOwner {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let upstream: Upstream
    private let pool: UpstreamPool
    private let limits: TapLimits
    private let gauge: ForwardingGauge
    /// Whether reading the upstream is paused until the client can take more of the answer.
    private var upstreamPaused = false
    /// Counts the pauses of this connection: a send-timeout check finds it changed when the
    /// pause it was set for has ended.
    private var pauseNumber = 0
    /// Nil for the bare proxy (the bench's baseline): nothing is captured or reported.
    private let report: (@Sendable (TapExchange) -> Void)?
    private var context: ChannelHandlerContext?
    /// The upstream connection this exchange took from the pool, from the request's end to the answer's.
    private var connection: UpstreamConnection?
    /// A connection was asked of the pool and has not come yet.
    private var taking = false
    /// The request as it goes upstream, its body gathered until the request ends.
    private var outgoing: HTTPRequestHead?
    private var body: ByteBuffer?
    /// The client framed a body (`Content-Length` or `Transfer-Encoding`): upstream gets its length.
    private var framesBody = false
    private var capture: ExchangeCapture?
    /// The request was refused here (413): its remaining parts are dropped.
    private var refusing = false
    /// The upstream's answer asked to close its connection after it.
    private var upstreamCloses = false
    /// The answer bytes of the upstream read under way, whether it began with reading paused, and
    /// the bytes read since the last pause: the terms of the buffering bound (`ForwardingGauge`).
    private var readBytes = 0
    private var readBeganPaused = false
    private var readWhilePaused = 0

    init(
        upstream: Upstream, pool: UpstreamPool, limits: TapLimits, gauge: ForwardingGauge = ForwardingGauge(),
        report: (@Sendable (TapExchange) -> Void)?
    ) {
        self.gauge = gauge
        self.upstream = upstream
        self.pool = pool
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
            framesBody =
                forwarded.headers.contains(name: "content-length")
                || forwarded.headers.contains(name: "transfer-encoding")
            if head.method == .GET || head.method == .HEAD { capture?.forwarded = forwarded }
            outgoing = forwarded
            body = nil
        case .body(var buffer):
            guard !refusing else { return }
            capture?.requestBytes += buffer.readableBytes
            capture?.forwarded = nil
            // Held until the request ends, so at most the limit and one read of the client a
            // connection: over it, nothing has gone upstream to cut short.
            if let bytes = capture?.requestBytes, bytes > limits.maxBodyBytes {
                refuse(.payloadTooLarge, "request body over \(limits.maxBodyBytes) bytes")
                return
            }
            if body == nil {
                body = buffer
            } else {
                body?.writeBuffer(&buffer)
            }
        case .end:
            guard !refusing, var head = outgoing else { return }
            capture?.requestEnded = true
            // The body is whole: it goes with its length, as nginx sends a buffered body (a
            // chunked request's trailers, which a length cannot carry, are dropped).
            if framesBody {
                head.headers.remove(name: "transfer-encoding")
                head.headers.replaceOrAdd(name: "content-length", value: String(capture?.requestBytes ?? 0))
            }
            outgoing = head
            takeConnection()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let capture, report != nil {
            report?(capture.exchange(.cutShort(reason: "the client went away before the answer ended")))
        }
        capture = nil
        outgoing = nil
        body = nil
        // Mid-exchange: its answer cannot be finished, so the connection cannot serve another.
        if let connection { pool.discard(connection) }
        connection = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Waiting for the upstream is not the client's idleness (the upstream's own timeout covers
        // it); waiting for the rest of a request is (nginx's `client_body_timeout`).
        if capture == nil || refusing || capture?.requestEnded == false { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Asks the pool for a connection for the request now whole.
    private func takeConnection(fresh: Bool = false) {
        guard let context else { return }
        taking = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        pool.take(fresh: fresh) { handler.value.took($0) }
    }

    private func took(_ result: Result<UpstreamConnection, any Error>) {
        taking = false
        switch result {
        case .success(let connection):
            // The client left (or its request was answered) while the connection was made: it
            // carried nothing, so it serves the next one.
            guard context != nil, capture != nil, self.connection == nil, let head = outgoing else {
                pool.giveBack(connection)
                return
            }
            self.connection = connection
            connection.answers.owner = self
            upstreamPaused = false
            let channel = connection.channel
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body, body.readableBytes > 0 {
                channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil)
            }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            // A body-less GET or HEAD keeps its head (`capture.forwarded`) for a retry; nothing else is kept.
            outgoing = nil
            body = nil
        case .failure(let error):
            outgoing = nil
            body = nil
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
        if readBytes == 0 { readBeganPaused = upstreamPaused }
        readBytes += buffer.readableBytes
        if readBeganPaused {
            readWhilePaused += buffer.readableBytes
            gauge.readWhilePaused(readWhilePaused)
        }
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        if let bytes = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes) { gauge.buffered(bytes) }
        // Backpressure: a client slower than the upstream stops the reading of the upstream
        // (its kernel buffers then fill and TCP slows the upstream), so an answer is held in
        // memory only up to the client channel's high-water mark and one read more: the upstream
        // is read once each time its socket is readable, at most `UpstreamPool.maxRead` bytes.
        // An upstream that closes is read to its end at once, paused or not (SwiftNIO's
        // `readEOF0`); its socket's receive buffer, `UpstreamPool.receiveBuffer`, bounds that.
        if !context.channel.isWritable { pauseUpstream() }
    }

    private func pauseUpstream() {
        guard !upstreamPaused, let connection, let context else { return }
        upstreamPaused = true
        readWhilePaused = 0
        connection.answers.paused = true
        gauge.paused()
        try? connection.channel.syncOptions?.setOption(.autoRead, value: false)
        pauseNumber += 1
        checkSending(pause: pauseNumber, buffered: Self.buffered(context), after: limits.clientTimeout)
    }

    private func resumeUpstream() {
        guard upstreamPaused else { return }
        upstreamPaused = false
        connection?.answers.paused = false
        // Turning autoRead back on reads at once.
        try? connection?.channel.syncOptions?.setOption(.autoRead, value: true)
    }

    private static func buffered(_ context: ChannelHandlerContext) -> Int {
        (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
    }

    /// nginx's `send_timeout`: a client that takes nothing of its answer for the client timeout is
    /// closed, and the upstream connection held for it with it. Taking anything (fewer bytes
    /// queued than at the last look) starts the timeout again, so a slow reader is never cut.
    private func checkSending(pause: Int, buffered: Int, after delay: TimeAmount) {
        guard let context else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: delay) {
            handler.value.sendingChecked(pause: pause, buffered: buffered)
        }
    }

    private func sendingChecked(pause: Int, buffered before: Int) {
        guard upstreamPaused, pause == pauseNumber, let context else { return }
        let now = Self.buffered(context)
        if now < before {
            checkSending(pause: pause, buffered: now, after: limits.clientTimeout)
            return
        }
        if let connection {
            self.connection = nil
            pool.discard(connection)
        }
        upstreamPaused = false
        gauge.clientStalled()
        cutShort("the client took nothing of the answer for \(TapLimits.said(limits.clientTimeout))")
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { resumeUpstream() }
        context.fireChannelWritabilityChanged()
    }

    func answerReadComplete() {
        gauge.upstreamRead(readBytes)
        readBytes = 0
        context?.flush()
    }

    func answerEnd(_ trailers: HTTPHeaders?) {
        guard let context, let capture, let connection else { return }
        self.capture = nil
        self.connection = nil
        upstreamPaused = false
        // Given back before the client's answer ends: the pipelining handler may hand over the
        // client's next request as that end is written, and it may take this same connection.
        if upstreamCloses { pool.discard(connection) } else { pool.giveBack(connection) }
        let keep = capture.clientKeepsAlive
        context.writeAndFlush(wrapOutboundOut(.end(trailers))).whenComplete { [context] _ in
            if !keep { context.close(promise: nil) }
        }
        report?(capture.exchange(.answered))
    }

    func upstreamClosed() {
        guard let connection else { return }
        self.connection = nil
        connection.answers.owner = nil
        guard var capture else { return }
        if capture.headSent {
            cutShort("the upstream closed the connection before the answer ended")
        } else if !capture.retried, capture.requestEnded, let head = capture.forwarded, !taking {
            // A kept-alive connection the upstream closed as the request went out (its idle
            // timeout): a body-less GET or HEAD is sent once more on a new one, as nginx does.
            capture.retried = true
            self.capture = capture
            outgoing = head
            body = nil
            takeConnection(fresh: true)
        } else {
            noAnswer(.badGateway, "upstream \(upstream.host):\(upstream.port) closed the connection without answering")
        }
    }

    func upstreamIdle() {
        guard let capture, let connection else { return }
        self.connection = nil
        pool.discard(connection)
        if capture.headSent {
            cutShort("the upstream stalled for \(TapLimits.said(limits.upstreamReadTimeout)) mid-answer")
        } else {
            noAnswer(
                .gatewayTimeout,
                "upstream \(upstream.host):\(upstream.port) did not answer within \(TapLimits.said(limits.upstreamReadTimeout))"
            )
        }
    }

    func upstreamIdleHeld() { gauge.idleHeld() }

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
        outgoing = nil
        body = nil
        writeOwn(status, "tokendash tap: \(reason)\n", context: context, version: capture.version, keepAlive: false)
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
