import Foundation
import NetworkAddresses
import ProviderVocabulary
import Redaction

/// One HTTP proxy, parsed from a URL as curl reads `-x`/`https_proxy`: `[http://][user:password@]host[:port]`.
/// Its credentials go to the proxy as Basic `Proxy-Authorization`; `display` is the only form
/// that may be printed.
public struct ProxyServer: Sendable, Hashable {
    /// The host name or IP address (an IPv6 address without brackets).
    public let host: String
    public let port: Int
    /// Percent-decoded, as curl decodes them.
    package let username: String?
    package let password: String?

    /// curl's default proxy port when the URL names none.
    public static let defaultPort = 1080

    public init(host: String, port: Int, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// Parses `text` as a proxy URL. `origin` names where it came from (`--proxy`, `https_proxy`)
    /// for the error, which never quotes the credentials.
    public init(parsing text: String, origin: String) throws(ProxyURLError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func fail(_ why: String) -> ProxyURLError {
            ProxyURLError(
                message:
                    "\(origin): \(why): \"\(URLRedactor.redact(trimmed))\" (expected http://[user:password@]host[:port])"
            )
        }
        guard !trimmed.isEmpty else { throw ProxyURLError(message: "\(origin): empty proxy URL") }
        // As curl: no scheme means an HTTP proxy.
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme) else { throw fail("not a URL") }
        let scheme = components.scheme?.lowercased() ?? ""
        guard scheme == "http" else {
            // AsyncHTTPClient speaks plain HTTP (and unauthenticated SOCKS5) to a proxy; TLS to the
            // proxy itself (curl's https:// proxies) it cannot do.
            throw fail("only http:// proxies are supported, not \(scheme)://")
        }
        guard var host = components.host, !host.isEmpty else { throw fail("no host") }
        host = HostPort.bare(host)
        let port = components.port ?? Self.defaultPort
        guard (1...65_535).contains(port) else { throw fail("port out of range") }
        self.init(
            host: host, port: port,
            username: components.user.flatMap { $0.isEmpty ? nil : $0 },
            password: components.password)
    }

    /// `host:port` (IPv6 bracketed): what a failure names.
    public var address: String { HostPort(host: host, port: port).description }

    /// Whether the proxy URL carried credentials.
    public var hasCredentials: Bool { username != nil }

    /// The `Proxy-Authorization` value for the requests tokendash writes itself (absolute form,
    /// the refused tunnel's second CONNECT); the same bytes AsyncHTTPClient sends for `authorization`.
    public var basicCredential: String? {
        username.map { "Basic " + Data("\($0):\(password ?? "")".utf8).base64EncodedString() }
    }

    /// What of this proxy must never be printed: the password, and the Basic credential sent as
    /// `Proxy-Authorization`, which a proxy's 407 page or a backend's error may quote back.
    public var secrets: [String] {
        guard let basicCredential else { return [] }
        var list = [basicCredential]
        if let password, !password.isEmpty { list.append(password) }
        return list
    }

    /// The proxy as a URL with any credentials hidden: `http://‹hidden›@127.0.0.1:3128`.
    public var display: String { "http://" + (hasCredentials ? URLRedactor.hidden + "@" : "") + address }
}

/// A proxy URL that cannot be used, in one line that names where it came from.
public struct ProxyURLError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public var description: String { message }
}
