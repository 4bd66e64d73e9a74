import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import ProviderVocabulary
import ProxyKit

/// The real transport: HTTP (the token GET, Fleet Engine calls) through AsyncHTTPClient (SwiftNIO), with what Linux URLSession
/// could not do: trust a private CA, reach IPv6 literals, enforce the request's timeout, and say
/// in words why a request failed; go through the proxy curl would choose (`ProxySettings`), and
/// read gzip and deflate answers. One `HTTPClient` (and its connection pool) per route, direct or
/// through a proxy, serves every request; call `shutdown()` before dropping the transport.
public final class HTTPClientTransport: TokenTransport {
    /// How the backend's certificate is checked.
    public typealias Trust = TransportTrust

    /// Redirects followed before giving up; curl stops at 50, browsers at 20, a token endpoint needs one or two.
    public static let maximumRedirects = 10

    /// How far a compressed answer may expand before it is refused as a zip bomb. A token answer
    /// is JSON around a base64url JWT, which gzip shrinks 1.3 to 3 times (even whitespace-padded
    /// JSON stays under 20); gzip's own ceiling is about 1,030. 100 passes every honest answer with
    /// room to spare. The ratio is checked against the compressed bytes received so far, after
    /// each inflate step (16 KiB or twice the chunk), so a bomb is named as one after its first
    /// few kilobytes; the 64 KiB cap on the decoded body bounds memory for the rest.
    public static let maximumCompressionRatio = 100

    public let trust: Trust
    public let proxy: ProxySettings
    private let reuseConnections: Bool
    private let clock: any SleepingClock
    /// The longest a connection (and, through a proxy, its CONNECT) may take, in seconds.
    private let connectLimit: TimeInterval
    /// AsyncHTTPClient sets its proxy per client, not per request: one client goes direct, one more
    /// per proxy server a request may be routed through.
    private let direct: HTTPClient
    private let proxied: [ProxyServer: HTTPClient]
    /// Kept-alive connections for absolute-form requests through a proxy; nil without reuse.
    private let proxyPool: ProxyConnectionPool?

    /// Throws `FleetAuthError.other` when the CA file cannot be read or holds no certificate, so a
    /// typo in `--cacert` stops the program at start instead of failing every fetch.
    /// - Parameter reuseConnections: keep connections open between requests (the default). Tests
    ///   turn it off: their loopback servers come and go on ports the OS hands out again, and a
    ///   pooled connection to a server that is gone would carry the next test's request.
    /// - Parameter clock: what the request's timeout waits on; tests pass a stepped one.
    /// - Parameter connectionsPerHost: connections open at once to one backend (AsyncHTTPClient's
    ///   default is 8). Requests beyond them queue, so it caps the rate at connections ÷ latency:
    ///   8 to a backend 200 ms away is 40 requests a second, however many SDKs are due.
    /// - Parameter connectTimeout: the longest a connection may take, in seconds; a request's own
    ///   timeout still ends it sooner. AsyncHTTPClient counts it on the wall clock whatever `clock`
    ///   is, so a session passes its request timeout (a `--timeout 120` gets 120 s to connect, not
    ///   30) and tests pass their patience.
    public init(
        trust: Trust = .system, proxy: ProxySettings = .direct, reuseConnections: Bool = true,
        clock: any SleepingClock = SystemClock(), connectionsPerHost: Int = 8, connectTimeout: TimeInterval = 30
    ) throws {
        self.trust = trust
        self.proxy = proxy
        self.reuseConnections = reuseConnections
        proxyPool = reuseConnections ? ProxyConnectionPool() : nil
        self.clock = clock
        connectLimit = min(InputBounds.longestDuration, max(0.001, connectTimeout))
        let tls = try trust.clientConfiguration()
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            // Followed here instead, to count hops, name loops and drop credentials on a change of origin.
            redirectConfiguration: .disallow,
            timeout: .init(connect: Self.amount(connectLimit)),
            decompression: .enabled(limit: .ratio(Self.maximumCompressionRatio))
        )
        // By default a refused connection is retried with backoff until the connect timeout; a token
        // fetch should report it at once and let the provider's own backoff decide when to retry.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, connectionsPerHost)
        direct = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        var proxied: [ProxyServer: HTTPClient] = [:]
        for server in Set([proxy.http, proxy.https].compactMap { $0 }) {
            var through = configuration
            // AsyncHTTPClient opens a CONNECT tunnel through the proxy for http targets as well as
            // https ones: used for https, and for http under --proxy-tunnel (see `once`).
            through.proxy = .server(host: server.host, port: server.port, authorization: server.authorization)
            proxied[server] = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: through)
        }
        self.proxied = proxied
    }

    public var isInsecure: Bool { trust == .insecure }

    /// Closes the pool's connections. The transport must not be used afterwards.
    public func shutdown() async {
        try? await direct.shutdown()
        for client in proxied.values { try? await client.shutdown() }
        proxyPool?.closeAll()
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        // AsyncHTTPClient's deadline covers the response head only, not the body, and an
        // absolute-form request has none, so the whole exchange (redirects and body included)
        // races a timer here.
        do {
            return try await withThrowingTaskGroup(of: TransportResponse.self) { group in
                group.addTask { try await self.follow(request) }
                group.addTask {
                    try await self.clock.sleep(for: request.timeout)
                    throw FleetAuthError.timeout(seconds: request.timeout)
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw FleetAuthError.cancelled }
                return first
            }
        } catch let error as FleetAuthError {
            throw error
        } catch {
            throw Task.isCancelled
                ? FleetAuthError.cancelled : await translate(error, url: request.url, timeout: request.timeout)
        }
    }

    /// One GET, then one per redirect, until an answer that is not a redirect. Any other method
    /// is sent once and its answer returned as it is: a write is not repeated at another address.
    private func follow(_ request: TransportRequest) async throws -> TransportResponse {
        var url = request.url
        var headers = request.headers
        var visited = [url.absoluteString]
        while true {
            let response: TransportResponse
            do {
                response = try await once(request, url: url, headers: headers)
            } catch let error as FleetAuthError {
                throw error
            } catch {
                throw await translate(error, url: url, timeout: request.timeout)
            }
            guard request.method == "GET", [301, 302, 303, 307, 308].contains(response.status),
                let location = response.header("Location")
            else {
                return response
            }
            guard let next = URL(string: location, relativeTo: url)?.absoluteURL,
                let scheme = next.scheme?.lowercased(), ["http", "https"].contains(scheme), next.host != nil
            else {
                throw FleetAuthError.unreachable(
                    url: url.absoluteString,
                    reason: "redirect (HTTP \(response.status)) to an unusable Location \"\(location)\"")
            }
            let hops = visited.count
            if let first = visited.firstIndex(of: next.absoluteString) {
                let loop = (visited[first...] + [next.absoluteString]).joined(separator: " -> ")
                throw FleetAuthError.unreachable(
                    url: request.url.absoluteString,
                    reason:
                        "redirect loop: after \(hops) hop\(hops == 1 ? "" : "s") the backend sent us back to \(next.absoluteString) (\(loop))"
                )
            }
            if hops > Self.maximumRedirects {
                throw FleetAuthError.unreachable(
                    url: request.url.absoluteString,
                    reason:
                        "too many redirects: gave up after \(Self.maximumRedirects) (the next was to \(next.absoluteString))"
                )
            }
            if !Self.sameOrigin(url, next) {
                // As curl does: credentials given for one host are not handed to whichever host it redirects to.
                headers.removeAll { ["authorization", "cookie", "proxy-authorization"].contains($0.name.lowercased()) }
            }
            visited.append(next.absoluteString)
            url = next
        }
    }

    private func once(_ original: TransportRequest, url: URL, headers: [ProviderVocabulary.HTTPHeader]) async throws
        -> TransportResponse
    {
        let cap = original.maxBodyBytes
        let timeout = original.timeout
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: original.method)
        request.headers.add(name: "Accept", value: "application/json")
        if let body = original.body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        // As URLSession and curl --compressed: the answers Google's samples get.
        request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        if !reuseConnections { request.headers.add(name: "Connection", value: "close") }
        for header in headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        if let server = proxy.server(for: url), proxy.sendsAbsoluteForm(url) {
            // As curl sends plain http through a proxy: the request itself, not a tunnel.
            return try await AbsoluteFormExchange.send(
                method: request.method, url: url, headers: request.headers, body: original.body, proxy: server,
                connectTimeout: connectTimeout(timeout), decompressionRatio: Self.maximumCompressionRatio,
                cap: cap, pool: proxyPool
            ) { status, headers, body in
                // Only a proxy sends 407: the same failure as when it refuses a tunnel for want of a login.
                if status == 407 { throw HTTPClientError.proxyAuthenticationRequired }
                return try await Self.answer(status: status, headers: headers, body: body, cap: cap)
            }
        }
        let client = proxy.server(for: url).flatMap { proxied[$0] } ?? direct
        let response = try await client.execute(request, deadline: .now() + .nanoseconds(Int64(timeout * 1e9)))
        return try await Self.answer(
            status: Int(response.status.code), headers: response.headers, body: response.body, cap: cap)
    }

    /// The connect timeout, or the request's own when shorter.
    func connectTimeout(_ timeout: TimeInterval) -> TimeAmount {
        Self.amount(min(connectLimit, max(0.001, timeout)))
    }

    private static func amount(_ seconds: TimeInterval) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }

    /// An answer read the same way whichever road it came by (AsyncHTTPClient's, or an
    /// absolute-form request's): the cap on the decoded body, decoding failures in words.
    static func answer<Body: AsyncSequence>(status: Int, headers: HTTPHeaders, body chunks: Body, cap: Int) async throws
        -> TransportResponse where Body.Element == ByteBuffer
    {
        let encoding = headers.first(name: "Content-Encoding")?.lowercased()
        // A compressed answer's Content-Length counts compressed bytes: the cap is on the decoded body, below.
        if encoding == nil, let length = headers.first(name: "Content-Length").flatMap(Int.init), length > cap {
            throw FleetAuthError.bodyTooLarge(limit: cap)
        }
        var body = Data()
        // Leaving the loop drops the body stream, which closes the connection: nothing past the
        // cap is read or buffered. Chunks arrive decoded.
        do {
            for try await chunk in chunks {
                guard body.count + chunk.readableBytes <= cap else { throw FleetAuthError.bodyTooLarge(limit: cap) }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch let error as NIOHTTPDecompression.DecompressionError {
            throw Self.decompressionFailure(error, encoding: encoding ?? "compressed")
        } catch let error as NIOHTTPDecompression.ExtraDecompressionError {
            throw FleetAuthError.other(
                "backend's \(encoding ?? "compressed") answer is cut short or has bytes after its end (\(error))")
        }
        var names: [String: String] = [:]
        for (name, value) in headers where names[name.lowercased()] == nil { names[name.lowercased()] = value }
        return TransportResponse(status: status, body: body, headers: names)
    }

    static func decompressionFailure(_ error: NIOHTTPDecompression.DecompressionError, encoding: String)
        -> FleetAuthError
    {
        switch error {
        case .limit:
            .other(
                "backend's \(encoding) answer expands more than \(maximumCompressionRatio)× its compressed size: refused as a possible zip bomb"
            )
        case .inflationError(let code):
            .other("backend's \(encoding) answer is corrupt: it does not inflate (zlib error \(code))")
        default:
            .other("backend's \(encoding) answer cannot be decoded: \(error)")
        }
    }

    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && a.port == b.port
    }

    /// A library error as a `FleetAuthError` whose sentence says what happened, not an error code.
    private func translate(_ error: any Error, url: URL, timeout: TimeInterval) async -> FleetAuthError {
        if let error = error as? FleetAuthError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? NIOHTTPDecompression.DecompressionError {
            return Self.decompressionFailure(error, encoding: "compressed")
        }
        let through = proxy.server(for: url)
        if let through, let error = error as? HTTPClientError, error == .invalidProxyResponse {
            return .unreachable(
                url: url.absoluteString,
                reason: await TunnelRefusal.explain(
                    proxy: through, target: url, connectTimeout: connectTimeout(timeout)))
        }
        if let through,
            let reason = Self.proxyFailure(error, proxy: through, target: url, tunnelled: !proxy.sendsAbsoluteForm(url))
        {
            return .unreachable(url: url.absoluteString, reason: reason)
        }
        let reason: String
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout:
                return .timeout(seconds: timeout)
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                // The connect limit's seconds, not the request's: they are what ran out.
                return .timeout(seconds: min(timeout, connectLimit))
            case .cancelled: return .cancelled
            case .remoteConnectionClosed: reason = "connection closed by the backend before the response was complete"
            case .invalidURL, .emptyHost, .emptyScheme: reason = "not a URL AsyncHTTPClient can request"
            default: reason = "\(error)"
            }
        } else if let error = error as? NIOConnectionError {
            reason = ConnectionFailure.connectionFailure(error, host: url.host ?? "")
        } else if let error = error as? IOError {
            reason = ConnectionFailure.socketFailure(errno: error.errnoCode) ?? "\(error)"
        } else if through != nil, error is NIOSSLExtraError || error is NIOSSLError || error is BoringSSLError {
            // The diagnosis opens a second, direct connection, which the proxy is there to avoid.
            reason = "TLS handshake through the proxy failed: \(error)"
        } else if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            reason = await TLSDiagnosis.explain(url: url, handshakeError: error)
        } else if error is NIOSSLError || error is BoringSSLError {
            reason = await TLSDiagnosis.explain(url: url, handshakeError: error)
        } else {
            reason = "\(error)"
        }
        return .unreachable(url: url.absoluteString, reason: reason)
    }

    /// A failure on the way through `proxy`, in words; nil when it is not the proxy's. Every
    /// connection goes to the proxy, so a refused or unresolvable one is the proxy's; the backend's
    /// own refusal reaches us as the proxy's answer to CONNECT.
    static func proxyFailure(_ error: any Error, proxy: ProxyServer, target: URL, tunnelled: Bool = true) -> String? {
        let name = "proxy \(proxy.address)"
        let tunnel = "\(target.host ?? ""):\(target.port ?? (target.scheme?.lowercased() == "https" ? 443 : 80))"
        if let error = error as? HTTPClientError {
            switch error {
            case .proxyAuthenticationRequired:
                return "\(name) answered 407 Proxy Authentication Required ("
                    + (proxy.hasCredentials
                        ? "it refused the user and password in the proxy URL)"
                        : "the proxy URL holds no user:password@)")
            case .httpProxyHandshakeTimeout:
                return "\(name) did not answer CONNECT \(tunnel) in time"
            case .remoteConnectionClosed:
                return "\(name) closed the connection"
                    + (tunnelled ? " (after CONNECT \(tunnel))" : " before the answer from \(tunnel) was complete")
            default:
                return nil
            }
        }
        if let error = error as? NIOConnectionError {
            if let attempt = error.connectionErrors.first, let io = attempt.error as? IOError {
                return proxySocketFailure(io.errnoCode, name: name)
            }
            return "\(name): " + ConnectionFailure.connectionFailure(error, host: proxy.host)
        }
        if let error = error as? IOError { return proxySocketFailure(error.errnoCode, name: name) }
        if case .connectTimeout? = error as? ChannelError {
            return "\(name) did not accept the connection in time"
        }
        return nil
    }

    private static func proxySocketFailure(_ errno: Int32, name: String) -> String? {
        switch errno {
        case ECONNREFUSED: "\(name) refused the connection"
        case ECONNRESET: "\(name) reset the connection"
        default: ConnectionFailure.socketFailure(errno: errno).map { "\(name): \($0)" }
        }
    }
}
