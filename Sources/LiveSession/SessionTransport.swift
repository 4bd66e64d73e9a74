import Foundation
import HTTPTransport

/// What the session asks of its transport beyond the SDKs' fetches: the header's insecure flag and
/// proxy, and the shutdown at the end. A protocol so a test's session needs no AsyncHTTPClient.
public protocol SessionTransport: Sendable {
    /// TLS certificates are not verified (`--insecure`).
    var isInsecure: Bool { get }
    /// The proxy a request to `url` goes through, as the header names it; nil when it goes direct.
    func proxyDisplay(for url: URL) -> String?
    func shutdown() async
}

extension HTTPClientTransport: SessionTransport {
    public func proxyDisplay(for url: URL) -> String? { proxy.server(for: url)?.display }
}
