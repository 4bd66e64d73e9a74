import AsyncHTTPClient
import FleetAuth
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// The real transport: HTTP GET through AsyncHTTPClient (SwiftNIO), with what Linux URLSession
/// could not do: trust a private CA, reach IPv6 literals, enforce the request's timeout, and say
/// in words why a request failed. One `HTTPClient` (and its connection pool) serves every request;
/// call `shutdown()` before dropping the transport.
public final class HTTPClientTransport: TokenTransport {
    /// How the backend's certificate is checked.
    public enum Trust: Sendable, Equatable {
        /// The system's roots (`/etc/ssl/certs`).
        case system
        /// Only these PEM certificates, like curl's `--cacert`.
        case certificates(pemFile: String)
        /// No verification at all (`--insecure`): anyone on the path can impersonate the backend.
        case insecure
    }

    /// Redirects followed before giving up; curl stops at 50, browsers at 20, a token endpoint needs one or two.
    public static let maximumRedirects = 10

    public let trust: Trust
    private let reuseConnections: Bool
    private let client: HTTPClient

    /// Throws `FleetAuthError.other` when the CA file cannot be read or holds no certificate, so a
    /// typo in `--cacert` stops the program at start instead of failing every fetch.
    /// - Parameter reuseConnections: keep connections open between requests (the default). Tests
    ///   turn it off: their loopback servers come and go on ports the OS hands out again, and a
    ///   pooled connection to a server that is gone would carry the next test's request.
    public init(trust: Trust = .system, reuseConnections: Bool = true) throws {
        self.trust = trust
        self.reuseConnections = reuseConnections
        var tls = TLSConfiguration.makeClientConfiguration()
        switch trust {
        case .system:
            break
        case .certificates(let path):
            let roots: [NIOSSLCertificate]
            do {
                roots = try NIOSSLCertificate.fromPEMFile(path)
            } catch {
                throw FleetAuthError.other("cannot read CA certificates from \(path): \(error)")
            }
            guard !roots.isEmpty else { throw FleetAuthError.other("no PEM certificate in \(path)") }
            tls.trustRoots = .certificates(roots)
        case .insecure:
            tls.certificateVerification = .none
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            // Followed here instead, to count hops, name loops and drop credentials on a change of origin.
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(30)),
            decompression: .disabled
        )
        // By default a refused connection is retried with backoff until the connect timeout; a token
        // fetch should report it at once and let the provider's own backoff decide when to retry.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    public var isInsecure: Bool { trust == .insecure }

    /// Closes the pool's connections. The transport must not be used afterwards.
    public func shutdown() async {
        try? await client.shutdown()
    }

    public func get(_ request: TransportRequest) async throws -> TransportResponse {
        // AsyncHTTPClient's deadline covers the response head only, not the body, so the whole
        // exchange (redirects and body included) races a timer here.
        do {
            return try await withThrowingTaskGroup(of: TransportResponse.self) { group in
                group.addTask { try await self.follow(request) }
                group.addTask {
                    try await Task.sleep(for: .seconds(request.timeout))
                    throw FleetAuthError.timeout(seconds: request.timeout)
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw FleetAuthError.cancelled }
                return first
            }
        } catch let error as FleetAuthError {
            throw error
        } catch {
            throw Task.isCancelled ? FleetAuthError.cancelled : await translate(error, url: request.url, timeout: request.timeout)
        }
    }

    /// One GET, then one per redirect, until an answer that is not a redirect.
    private func follow(_ request: TransportRequest) async throws -> TransportResponse {
        var url = request.url
        var headers = request.headers
        var visited = [url.absoluteString]
        while true {
            let response: TransportResponse
            do {
                response = try await once(url: url, headers: headers, cap: request.maxBodyBytes, timeout: request.timeout)
            } catch let error as FleetAuthError {
                throw error
            } catch {
                throw await translate(error, url: url, timeout: request.timeout)
            }
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location") else {
                return response
            }
            guard let next = URL(string: location, relativeTo: url)?.absoluteURL,
                  let scheme = next.scheme?.lowercased(), ["http", "https"].contains(scheme), next.host != nil else {
                throw FleetAuthError.unreachable(url: url.absoluteString, reason: "redirect (HTTP \(response.status)) to an unusable Location \"\(location)\"")
            }
            let hops = visited.count
            if let first = visited.firstIndex(of: next.absoluteString) {
                let loop = (visited[first...] + [next.absoluteString]).joined(separator: " -> ")
                throw FleetAuthError.unreachable(
                    url: request.url.absoluteString,
                    reason: "redirect loop: after \(hops) hop\(hops == 1 ? "" : "s") the backend sent us back to \(next.absoluteString) (\(loop))")
            }
            if hops > Self.maximumRedirects {
                throw FleetAuthError.unreachable(
                    url: request.url.absoluteString,
                    reason: "too many redirects: gave up after \(Self.maximumRedirects) (the next was to \(next.absoluteString))")
            }
            if !Self.sameOrigin(url, next) {
                // As curl does: credentials given for one host are not handed to whichever host it redirects to.
                headers.removeAll { ["authorization", "cookie", "proxy-authorization"].contains($0.name.lowercased()) }
            }
            visited.append(next.absoluteString)
            url = next
        }
    }

    private func once(url: URL, headers: [FleetAuth.HTTPHeader], cap: Int, timeout: TimeInterval) async throws -> TransportResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        if !reuseConnections { request.headers.add(name: "Connection", value: "close") }
        for header in headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        let response = try await client.execute(request, deadline: .now() + .nanoseconds(Int64(timeout * 1e9)))
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > cap {
            throw FleetAuthError.bodyTooLarge(limit: cap)
        }
        var body = Data()
        // Leaving the loop drops the body stream, which makes AsyncHTTPClient close the connection:
        // nothing past the cap is read or buffered.
        for try await chunk in response.body {
            guard body.count + chunk.readableBytes <= cap else { throw FleetAuthError.bodyTooLarge(limit: cap) }
            body.append(contentsOf: chunk.readableBytesView)
        }
        var names: [String: String] = [:]
        for (name, value) in response.headers where names[name.lowercased()] == nil { names[name.lowercased()] = value }
        return TransportResponse(status: Int(response.status.code), body: body, headers: names)
    }

    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }

    /// A library error as a `FleetAuthError` whose sentence says what happened, not an error code.
    private func translate(_ error: any Error, url: URL, timeout: TimeInterval) async -> FleetAuthError {
        if let error = error as? FleetAuthError { return error }
        if error is CancellationError { return .cancelled }
        let reason: String
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return .timeout(seconds: timeout)
            case .cancelled: return .cancelled
            case .remoteConnectionClosed: reason = "connection closed by the backend before the response was complete"
            case .invalidURL, .emptyHost, .emptyScheme: reason = "not a URL AsyncHTTPClient can request"
            default: reason = "\(error)"
            }
        } else if let error = error as? NIOConnectionError {
            reason = Self.connectionFailure(error, host: url.host ?? "")
        } else if let error = error as? IOError {
            reason = Self.socketFailure(errno: error.errnoCode) ?? "\(error)"
        } else if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            reason = await TLSDiagnosis.explain(url: url, handshakeError: error)
        } else if error is NIOSSLError || error is BoringSSLError {
            reason = await TLSDiagnosis.explain(url: url, handshakeError: error)
        } else {
            reason = "\(error)"
        }
        return .unreachable(url: url.absoluteString, reason: reason)
    }

    static func connectionFailure(_ error: NIOConnectionError, host: String) -> String {
        if let attempt = error.connectionErrors.first, let io = attempt.error as? IOError,
           let reason = socketFailure(errno: io.errnoCode) {
            return reason
        }
        if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
            return "DNS: no such host \"\(host)\""
        }
        return "cannot connect: \(error.connectionErrors.map { "\($0.target): \($0.error)" }.joined(separator: "; "))"
    }

    static func socketFailure(errno: Int32) -> String? {
        switch errno {
        case ECONNREFUSED: "connection refused"
        case ECONNRESET: "connection reset by the backend (TCP RST) before the response was complete"
        case EPIPE: "connection closed by the backend while the request was being sent"
        case ENETUNREACH: "network unreachable"
        case EHOSTUNREACH: "host unreachable"
        case ETIMEDOUT: "connection timed out"
        case EADDRNOTAVAIL: "address not available (no route from this host)"
        default: nil
        }
    }
}
