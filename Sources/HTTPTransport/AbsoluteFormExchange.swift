import Foundation
import NIOCore
import NIOHTTP1
import ProviderVocabulary
import ProxyKit

/// One request to a proxy in absolute form (`GET http://host:port/path HTTP/1.1`), the way curl,
/// URLSession and browsers send plain-http requests through a proxy. AsyncHTTPClient cannot: its
/// request target is always the URL's path (`DeconstructedURL.uri`) and its proxy support always
/// opens a `CONNECT` tunnel (`HTTP1ProxyConnectHandler`), which many proxies refuse for anything
/// but port 443. So this one exchange is written on SwiftNIO's HTTP/1 client pipeline
/// (`ProxyChannel`, its `ProxyExchangeHandler`); what the answer means (size cap, decoding
/// errors, redirects, the timeout) stays with `HTTPClientTransport`, which reads this answer and
/// AsyncHTTPClient's alike.
///
/// Connections are kept alive between requests, as curl keeps them (`ProxyConnectionPool`): a
/// request takes an idle connection to its proxy, and one the proxy closed while idle is replaced
/// by a fresh one before anything is sent twice (a GET or HEAD whose reused connection gives no
/// answer is sent once more, on a new connection, as curl does). With `pool` nil, one connection
/// per request, `Connection: close`.
enum AbsoluteFormExchange {
    /// Sends the request to `proxy` and hands its answer's status, headers and body (at most
    /// `cap` decoded bytes of it gathered, then one chunk more) to `read`.
    static func send<T: Sendable>(
        method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?, proxy: ProxyServer,
        connectTimeout: TimeAmount, decompressionRatio: Int, cap: Int, pool: ProxyConnectionPool? = nil,
        read: @escaping @Sendable (_ status: Int, _ headers: HTTPHeaders, _ body: BodyParts) async throws -> T
    ) async throws -> T {
        guard let parts = Self.target(url) else {
            throw FleetAuthError.unreachable(url: url.absoluteString, reason: "no host in the URL")
        }
        let host = parts.host
        let cutShort = FleetAuthError.unreachable(
            url: url.absoluteString,
            reason: "proxy \(proxy.address) closed the connection before the answer from \(host) was complete")
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: parts.target)
        head.headers.add(name: "Host", value: host)
        head.headers.add(contentsOf: headers)
        if let body { head.headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)") }
        if let credential = proxy.basicCredential {
            head.headers.replaceOrAdd(name: "Proxy-Authorization", value: credential)
        }
        if pool == nil { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        let request = Request(head: head, body: body.map { ByteBuffer(bytes: $0) }, cap: cap, cutShort: cutShort)
        if let pool, let kept = pool.take(proxy) {
            do {
                return try await request.exchange(on: kept, pool: pool, read: read)
            } catch let unanswered as ProxyExchangeHandler.Unanswered {
                // The proxy closed the idle connection as the request went out: nothing was answered.
                guard method == .GET || method == .HEAD else { throw unanswered.underlying ?? cutShort }
            }
        }
        let connection = KeptConnection(
            try await ProxyChannel.open(to: proxy, connectTimeout: connectTimeout, decompression: decompressionRatio),
            proxy: proxy)
        do {
            return try await request.exchange(on: connection, pool: pool, read: read)
        } catch let unanswered as ProxyExchangeHandler.Unanswered {
            throw unanswered.underlying ?? cutShort
        }
    }

    /// One request's parts, sent on a kept connection.
    struct Request: Sendable {
        let head: HTTPRequestHead
        let body: ByteBuffer?
        let cap: Int
        let cutShort: FleetAuthError

        /// Sends the request on `connection`, reads the answer with `read`, and puts the
        /// connection back in `pool` when the answer was read to its end, `read` took it, and
        /// neither side asked to close; otherwise closes it. Cancelling the caller (its timeout)
        /// closes the connection, which ends the exchange.
        func exchange<T: Sendable>(
            on connection: KeptConnection, pool: ProxyConnectionPool?,
            read: @escaping @Sendable (Int, HTTPHeaders, BodyParts) async throws -> T
        ) async throws -> T {
            let answer = try await withTaskCancellationHandler {
                try await connection.send(head, body: body, cap: cap).get()
            } onCancel: {
                connection.close()
            }
            let failure = answer.failure.map { $0 is ProxyExchangeHandler.ClosedEarly ? cutShort : $0 }
            let value: T
            do {
                value = try await read(
                    Int(answer.head.status.code), answer.head.headers, BodyParts(answer.body, failure: failure))
            } catch {
                connection.close()
                throw error
            }
            let closing =
                (head.headers[canonicalForm: "connection"] + answer.head.headers[canonicalForm: "connection"])
                .contains { $0.lowercased() == "close" }
            if let pool, answer.finished, answer.head.version == .http1_1, !closing {
                pool.putBack(connection)
            } else {
                connection.close()
            }
            return value
        }
    }

    /// The absolute-form request target (no user, no fragment; `/` for an empty path) and the
    /// `Host` header for `url`; nil when it has no host. Cut from the URL's text, which Foundation
    /// has already parsed: taking it apart again with `URLComponents` was a fifth of each
    /// absolute-form fetch's CPU. Its test holds it to `URLComponents` over many URLs; the one
    /// difference is an internationalised name's `Host`, sent as the URL has it (its ASCII
    /// `xn--` form), where `URLComponents` gave its percent-encoded UTF-8, which no server reads.
    static func target(_ url: URL) -> (target: String, host: String)? {
        let text = url.absoluteString
        guard let separator = text.range(of: "://") else { return nil }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        // An empty port says nothing: "h:" is "h".
        let host = authority.hasSuffix(":") ? authority.dropLast() : authority
        guard let first = host.first, first != ":" else { return nil }
        var tail = rest[authorityEnd...]
        if let fragment = tail.firstIndex(of: "#") { tail = tail[..<fragment] }
        let path = tail.first == "/" ? String(tail) : "/" + tail
        return (text[..<separator.upperBound] + host + path, String(host))
    }

    /// The answer's body as it was gathered, decoded, in one chunk; then what cut it short, if anything.
    struct BodyParts: AsyncSequence, AsyncIteratorProtocol, Sendable {
        typealias Element = ByteBuffer
        private var body: ByteBuffer?
        private var failure: (any Error)?

        init(_ body: ByteBuffer, failure: (any Error)?) {
            self.body = body.readableBytes > 0 ? body : nil
            self.failure = failure
        }

        mutating func next() async throws -> ByteBuffer? {
            if let chunk = body {
                body = nil
                return chunk
            }
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }

        func makeAsyncIterator() -> BodyParts { self }
    }
}
