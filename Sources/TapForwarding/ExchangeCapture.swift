import Foundation
import NIOCore
import NIOHTTP1

/// What the client side keeps of the exchange in flight: enough to answer the client when the
/// upstream fails, and, when a reader is listening, what it reads (the answer's status, headers
/// and the start of its body). Without a reader nothing of the answer is copied.
struct ExchangeCapture {
    let method: HTTPMethod
    let target: String
    let version: HTTPVersion
    let keepAlive: Bool
    let time: Date
    let started: NIODeadline
    var requestBytes = 0
    var status: Int?
    var headers: [String: String] = [:]
    /// Copied straight into `Data`, the form the reader takes: one copy, not two.
    var body = Data()
    var bodyTruncated = false
    /// The answer's head went to the client: a failure from now on can only cut it short.
    var headSent = false
    /// The client's connection stays open after this answer.
    var clientKeepsAlive: Bool
    /// The head as sent upstream, kept while a body-less GET or HEAD may be sent again.
    var forwarded: HTTPRequestHead?
    /// The request was sent again on a new connection: a kept-alive one closed under it.
    var retried = false
    /// The client's request has ended (all of it went upstream, or waits for the connection).
    var requestEnded = false

    init(head: HTTPRequestHead, time: Date) {
        method = head.method
        target = head.uri
        version = head.version
        keepAlive = head.isKeepAlive
        clientKeepsAlive = head.isKeepAlive
        self.time = time
        started = .now()
    }

    mutating func keep(_ buffer: ByteBuffer) {
        guard !bodyTruncated else { return }
        let room = TapExchange.bodyCap - body.count
        if buffer.readableBytes > room {
            bodyTruncated = true
        } else {
            // From the bytes in place: `append(contentsOf:)` a view went through Data's generic
            // path, a dynamic cast on every chunk of every answer.
            buffer.withUnsafeReadableBytes { bytes in
                guard let start = bytes.baseAddress else { return }
                body.append(start.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            }
        }
    }

    func exchange(_ outcome: TapExchange.Outcome, status: Int? = nil) -> TapExchange {
        let elapsed = NIODeadline.now() - started
        return TapExchange(
            method: method.rawValue, target: target, status: status ?? self.status ?? 0, headers: headers,
            body: body, bodyTruncated: bodyTruncated,
            latency: Double(elapsed.nanoseconds) / 1e9, time: time, outcome: outcome)
    }
}
