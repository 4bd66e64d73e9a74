import FleetAuth
import Foundation
import NIOCore
import NIOHTTP1
import ProxyKit
import Synchronization

/// One request to a proxy in absolute form (`GET http://host:port/path HTTP/1.1`), the way curl,
/// URLSession and browsers send plain-http requests through a proxy. AsyncHTTPClient cannot: its
/// request target is always the URL's path (`DeconstructedURL.uri`) and its proxy support always
/// opens a `CONNECT` tunnel (`HTTP1ProxyConnectHandler`), which many proxies refuse for anything
/// but port 443. So this one exchange is written on SwiftNIO's HTTP/1 client pipeline
/// (`ProxyChannel`); what the answer means (size cap, decoding errors, redirects, the timeout)
/// stays with `HTTPClientTransport`, which reads this answer and AsyncHTTPClient's alike.
///
/// Connections are kept alive between requests, as curl keeps them (`ProxyConnectionPool`): a
/// request takes an idle connection to its proxy, and one the proxy closed while idle is replaced
/// by a fresh one before anything is sent twice (a GET or HEAD whose reused connection gives no
/// answer is sent once more, on a new connection, as curl does). With `pool` nil, one connection
/// per request, `Connection: close`.
enum AbsoluteFormExchange {
    /// Sends the request to `proxy` and hands its answer's status, headers and body to `read`,
    /// which runs on the connection's task while it is open.
    static func send<T: Sendable>(
        method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?, proxy: ProxyServer,
        connectTimeout: TimeAmount, decompressionRatio: Int, pool: ProxyConnectionPool? = nil,
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
        let request = Request(head: head, body: body, cutShort: cutShort)
        if let pool, let kept = pool.take(proxy) {
            do {
                return try await request.exchange(on: kept, pool: pool, read: read)
            } catch let unanswered as Unanswered {
                // The proxy closed the idle connection as the request went out: nothing was answered.
                guard method == .GET || method == .HEAD else { throw unanswered.underlying ?? cutShort }
            }
        }
        let connection = KeptConnection(
            try await ProxyChannel.open(to: proxy, connectTimeout: connectTimeout, decompression: decompressionRatio),
            proxy: proxy)
        do {
            return try await request.exchange(on: connection, pool: pool, read: read)
        } catch let unanswered as Unanswered {
            throw unanswered.underlying ?? cutShort
        }
    }

    /// No answer's head came back: the request may be sent again on another connection.
    struct Unanswered: Error {
        var underlying: (any Error)?
    }

    /// One request's parts, sent on a kept connection.
    struct Request: Sendable {
        let head: HTTPRequestHead
        let body: Data?
        let cutShort: FleetAuthError

        /// Writes the request on `connection`, reads the answer with `read`, and puts the
        /// connection back in `pool` when the answer was read to its end and neither side asked
        /// to close. Cancelling the caller (its timeout) closes the connection, which ends the read.
        func exchange<T: Sendable>(
            on connection: KeptConnection, pool: ProxyConnectionPool?,
            read: @escaping @Sendable (Int, HTTPHeaders, BodyParts) async throws -> T
        ) async throws -> T {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
                    let accepted = connection.run { answers, outbound in
                        let answer: HTTPResponseHead
                        do {
                            // One write and one flush for the whole request: a write each cost a
                            // syscall each, the larger part of a kept connection's extra CPU.
                            var request: [HTTPClientRequestPart] = [.head(head)]
                            if let body { request.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                            request.append(.end(nil))
                            try await outbound.write(contentsOf: request)
                            guard case .head(let head)? = try await answers.next() else {
                                done.resume(throwing: Unanswered())
                                return false
                            }
                            answer = head
                        } catch {
                            done.resume(throwing: Unanswered(underlying: error))
                            return false
                        }
                        let parts = BodyParts(parts: answers, cutShort: cutShort)
                        do {
                            let value = try await read(Int(answer.status.code), answer.headers, parts)
                            let closing =
                                (head.headers[canonicalForm: "connection"] + answer.headers[canonicalForm: "connection"])
                                .contains { $0.lowercased() == "close" }
                            let reusable = pool != nil && parts.finished && answer.version == .http1_1 && !closing
                            // Back in the pool before the caller goes on, so its next request finds it.
                            if reusable, let pool { pool.putBack(connection) }
                            done.resume(returning: value)
                            return reusable
                        } catch {
                            done.resume(throwing: error)
                            return false
                        }
                    }
                    if !accepted { done.resume(throwing: Unanswered()) }
                }
            } onCancel: {
                connection.close()
            }
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

    /// The answer's body chunks, decoded, until its end. Iterated within `read` only: the
    /// connection carries the next exchange once it returns.
    struct BodyParts: AsyncSequence, AsyncIteratorProtocol, Sendable {
        typealias Element = ByteBuffer
        // Copies share the stream they read, so whether its end was reached is shared too.
        fileprivate let parts: SharedParts
        fileprivate let cutShort: FleetAuthError

        fileprivate init(parts: KeptConnection.Inbound, cutShort: FleetAuthError) {
            self.parts = SharedParts(parts)
            self.cutShort = cutShort
        }

        /// The answer was read to its end.
        var finished: Bool { parts.ended.load(ordering: .relaxed) }

        mutating func next() async throws -> ByteBuffer? {
            while !finished {
                switch try await parts.next() {
                case .body(let chunk)?: return chunk
                case .end?: parts.ended.store(true, ordering: .relaxed)
                case .head?: continue
                case nil: throw cutShort
                }
            }
            return nil
        }

        func makeAsyncIterator() -> BodyParts { self }
    }

    /// The connection's answer stream, read by one exchange's task at a time.
    fileprivate final class SharedParts: Sendable {
        // The iterator is used only by the connection's task, one exchange after another, which
        // the compiler cannot see: hence the unchecked box.
        private nonisolated(unsafe) var iterator: KeptConnection.Inbound
        let ended = Atomic(false)

        init(_ iterator: KeptConnection.Inbound) { self.iterator = iterator }

        func next() async throws -> HTTPClientResponsePart? { try await iterator.next() }
    }
}
