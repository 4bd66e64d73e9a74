import Foundation
import Redaction

/// Which proxy, if any, each request goes through. AsyncHTTPClient reads no environment, so this
/// is chosen here, per request target (redirects included), the way curl chooses.
public struct ProxySettings: Sendable, Equatable {
    /// For `http://` targets.
    public var http: ProxyServer?
    /// For `https://` targets.
    public var https: ProxyServer?
    /// Targets that go direct even when a proxy is set.
    public var noProxy: NoProxyList
    /// Where the proxy came from, for `config check`: "environment https_proxy", "flag --proxy"...
    public var source: String
    /// `--proxy-tunnel` (curl's `--proxytunnel`): http targets through a `CONNECT` tunnel too.
    /// Otherwise, as curl sends them, they go to the proxy as absolute-form requests
    /// (`GET http://host:port/path`); https always tunnels.
    public var tunnelsHTTP = false

    public init(http: ProxyServer?, https: ProxyServer?, noProxy: NoProxyList = .empty, source: String) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
        self.source = source
    }

    /// Every request direct.
    public static let direct = ProxySettings(http: nil, https: nil, source: "none")

    /// The proxy variables as curl reads them (the ENVIRONMENT section of curl(1),
    /// https://everything.curl.dev/usingcurl/proxies/env): `https_proxy` or `HTTPS_PROXY` for https
    /// targets, `http_proxy` for http targets (lower case only: CGI servers put a request's
    /// `Proxy:` header in `HTTP_PROXY`, so curl ignores that name since 2001, commit 18f044f), then
    /// `all_proxy`/`ALL_PROXY` for either; `no_proxy` or `NO_PROXY`. Lower case wins; an empty
    /// value counts as unset.
    public static func fromEnvironment(_ environment: [String: String]) throws(ProxyURLError) -> ProxySettings {
        func value(_ names: [String]) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                    return (name, value)
                }
            }
            return nil
        }
        let all = value(["all_proxy", "ALL_PROXY"])
        let httpsVariable = value(["https_proxy", "HTTPS_PROXY"]) ?? all
        let httpVariable = value(["http_proxy"]) ?? all
        let https = try httpsVariable.map { v throws(ProxyURLError) in try ProxyServer(parsing: v.value, origin: v.name)
        }
        let http = try httpVariable.map { v throws(ProxyURLError) in try ProxyServer(parsing: v.value, origin: v.name) }
        var names: [String] = []
        for name in [httpsVariable?.name, httpVariable?.name].compactMap({ $0 }) where !names.contains(name) {
            names.append(name)
        }
        let source = names.isEmpty ? "none" : "environment " + names.joined(separator: ", ")
        return ProxySettings(http: http, https: https, noProxy: noProxyList(environment), source: source)
    }

    /// One proxy for both schemes (`--proxy`); `no_proxy` from the environment still applies, as
    /// curl applies it to `-x` too.
    public static func single(_ server: ProxyServer, environment: [String: String], source: String) -> ProxySettings {
        ProxySettings(http: server, https: server, noProxy: noProxyList(environment), source: source)
    }

    static func noProxyList(_ environment: [String: String]) -> NoProxyList {
        NoProxyList(environment["no_proxy"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["NO_PROXY"] ?? "")
    }

    /// The proxy for a request to `url`; nil to go direct.
    public func server(for url: URL) -> ProxyServer? {
        let scheme = url.scheme?.lowercased()
        guard let server = scheme == "https" ? https : scheme == "http" ? http : nil, let host = url.host else {
            return nil
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return noProxy.matches(host: host, port: port) ? nil : server
    }

    /// Whether a request to `url` through `server(for:)` goes to the proxy in absolute form
    /// rather than through a tunnel: a plain-http target, unless `--proxy-tunnel` was given.
    public func sendsAbsoluteForm(_ url: URL) -> Bool {
        !tunnelsHTTP && url.scheme?.lowercased() == "http" && server(for: url) != nil
    }

    /// These settings with `host` always reached direct (the embedded server, on loopback).
    public func bypassing(host: String) -> ProxySettings {
        var settings = self
        settings.noProxy = noProxy.adding(host: host)
        return settings
    }

    /// The proxies' passwords and credentials, for `SecretRedactor`.
    public var secrets: [String] { [http, https].compactMap { $0 }.flatMap(\.secrets) }

    /// Whether any request could go through a proxy.
    public var isDirect: Bool { http == nil && https == nil }

    /// The proxies as they may be printed: one URL, or one per scheme when they differ.
    public var display: String? {
        switch (http, https) {
        case (nil, nil): nil
        case (let h?, let s?) where h == s: h.display
        case (let h?, let s?): "\(s.display) (https), \(h.display) (http)"
        case (let h?, nil): "\(h.display) (http only)"
        case (nil, let s?): "\(s.display) (https only)"
        }
    }
}
