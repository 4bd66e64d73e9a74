import Foundation
import NIOSSL
import NetworkAddresses
import ProviderVocabulary
import ProxyKit

/// Where the tap forwards to: `--upstream http(s)://host:port`, checked at start, with the TLS
/// context made once under the same trust as today's backends (`--cacert`, `--insecure`).
public struct Upstream: Sendable {
    public let host: String
    public let port: Int
    /// Set for https: the client context every upstream connection's handshake uses.
    public let tls: NIOSSLContext?
    /// As given, for messages.
    public let text: String
    /// The forward proxy the upstream is reached through, chosen as today's transport chooses
    /// (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`); nil to connect direct.
    public let proxy: ProxyServer?
    /// Through `proxy` as absolute-form requests (`GET http://host:port/path`), as curl sends plain
    /// http; otherwise (https, or `tunnelsHTTP`) through a `CONNECT` tunnel.
    public let absoluteForm: Bool

    public enum Problem: Error, Sendable, CustomStringConvertible {
        case notHTTP(String)
        case hasPath(String)
        case tls(String, String)
        public var description: String {
            switch self {
            case .notHTTP(let t): "--upstream \(t): not an http:// or https:// URL with a host"
            case .hasPath(let t):
                "--upstream \(t): give only scheme, host and port; every request's path goes upstream as it came"
            case .tls(let t, let reason): "--upstream \(t): \(reason)"
            }
        }
    }

    public init(_ text: String, trust: TransportTrust = .system, proxies: ProxySettings = .direct)
        throws(Problem)
    {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else { throw .notHTTP(text) }
        guard url.path.isEmpty || url.path == "/", url.query == nil else { throw .hasPath(text) }
        self.host = HostPort.bare(host)
        port = url.port ?? (scheme == "https" ? 443 : 80)
        self.text = text
        proxy = proxies.server(for: url)
        absoluteForm = proxies.sendsAbsoluteForm(url)
        if scheme == "https" {
            do { tls = try NIOSSLContext(configuration: trust.clientConfiguration()) } catch {
                throw .tls(text, "\(error)")
            }
        } else {
            tls = nil
        }
    }

    /// `host:port`, an IPv6 address bracketed: what a `CONNECT` and an absolute-form target name.
    var authority: HostPort { HostPort(host: host, port: port) }

    /// A request's target as the upstream connection sends it: the path as it came, or in
    /// absolute form to a proxy.
    func target(_ uri: String) -> String { absoluteForm ? "http://\(authority)\(uri)" : uri }

    /// The name the TLS handshake asks for; none for an IP literal, which SNI may not carry.
    var serverName: String? {
        host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
    }
}
