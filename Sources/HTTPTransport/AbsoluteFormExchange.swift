import FleetAuth
import Foundation
import NIOCore
import NIOHTTP1
import ProxyKit

/// One request to a proxy in absolute form (`GET http://host:port/path HTTP/1.1`), the way curl,
/// URLSession and browsers send plain-http requests through a proxy. AsyncHTTPClient cannot: its
/// request target is always the URL's path (`DeconstructedURL.uri`) and its proxy support always
/// opens a `CONNECT` tunnel (`HTTP1ProxyConnectHandler`), which many proxies refuse for anything
/// but port 443. So this one exchange is written on SwiftNIO's HTTP/1 client pipeline
/// (`ProxyChannel`); what the answer means (size cap, decoding errors, redirects, the timeout)
/// stays with `HTTPClientTransport`, which reads this answer and AsyncHTTPClient's alike.
///
/// One connection per request, closed after it: no pool. A token fetch or a Fleet Engine call
/// through a proxy pays one more TCP handshake to the proxy, which is on the local network.
enum AbsoluteFormExchange {
    /// Sends the request to `proxy` and hands its answer's status, headers and body to `read`
    /// while the connection is open; the connection is closed when `read` returns or throws.
    static func send<T: Sendable>(
        method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?, proxy: ProxyServer,
        connectTimeout: TimeAmount, decompressionRatio: Int,
        read: (_ status: Int, _ headers: HTTPHeaders, _ body: BodyParts) async throws -> T
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
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        let connection = try await ProxyChannel.open(
            to: proxy, connectTimeout: connectTimeout, decompression: decompressionRatio)
        return try await connection.executeThenClose { inbound, outbound in
            try await outbound.write(.head(head))
            if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            var answers = inbound.makeAsyncIterator()
            guard case .head(let answer)? = try await answers.next() else { throw cutShort }
            return try await read(
                Int(answer.status.code), answer.headers, BodyParts(parts: answers, cutShort: cutShort))
        }
    }

    /// The absolute-form request target (no user, no fragment; `/` for an empty path) and the
    /// `Host` header for `url`; nil when it has no host.
    static func target(_ url: URL) -> (target: String, host: String)? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let rawHost = components.percentEncodedHost, !rawHost.isEmpty
        else { return nil }
        components.user = nil
        components.password = nil
        components.fragment = nil
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        guard let target = components.string else { return nil }
        let host = HostPort.bracketed(rawHost) + (components.port.map { ":\($0)" } ?? "")
        return (target, host)
    }

    /// The answer's body chunks, decoded, until its end. Iterated within `send`'s `read` only:
    /// it reads from the connection `send` closes afterwards.
    struct BodyParts: AsyncSequence, AsyncIteratorProtocol {
        typealias Element = ByteBuffer
        fileprivate var parts: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
        fileprivate let cutShort: FleetAuthError
        private var ended = false

        fileprivate init(
            parts: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator, cutShort: FleetAuthError
        ) {
            self.parts = parts
            self.cutShort = cutShort
        }

        mutating func next() async throws -> ByteBuffer? {
            while !ended {
                switch try await parts.next() {
                case .body(let chunk)?: return chunk
                case .end?: ended = true
                case .head?: continue
                case nil: throw cutShort
                }
            }
            return nil
        }

        func makeAsyncIterator() -> BodyParts { self }
    }
}
