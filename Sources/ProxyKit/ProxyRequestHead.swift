import Foundation
import NIOCore
import NIOHTTP1
import NetworkAddresses

/// The head of a request a client sent to a forward proxy: `CONNECT host:port` (https) or an
/// absolute-form request (`GET http://host:port/path`, plain http), as curl (and so Linux's
/// URLSession) sends them to a proxy. Decoded by NIOHTTP1 (`HeadDecoding`), as a server decodes a request.
public struct ProxyRequestHead: Sendable {
    /// The longest head taken: nginx's default for a request's headers is 8 KiB per line, 32 KiB in all.
    public static let limit = 16_384

    public let method: String
    /// The request target as sent: `host:port`, or the absolute URL.
    public let target: String
    public let version: HTTPVersion
    /// The headers as sent, in order.
    public let headers: HTTPHeaders
    /// Where it goes (an IPv6 address without brackets).
    public let destination: HostPort

    public var isConnect: Bool { method == "CONNECT" }
    public var host: String { destination.host }
    public var port: Int { destination.port }

    /// Reads `head`, the bytes up to and without the blank line.
    public init(parsing head: String) throws(ProxyHeadError) {
        guard let decoded = HeadDecoding.request(head) else { throw .badRequestLine }
        method = decoded.method.rawValue
        target = decoded.uri
        version = decoded.version
        headers = decoded.headers
        let authority: Substring
        if method == "CONNECT" {
            authority = Substring(target)
        } else {
            guard target.lowercased().hasPrefix("http://") else {
                throw target.lowercased().hasPrefix("https://") || !target.hasPrefix("/") ? .notPlainHTTP : .notAbsolute
            }
            let rest = target.dropFirst("http://".count)
            authority = rest[..<(rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex)]
        }
        // User info in an absolute URL is the target's, not the proxy's: what follows the last @.
        let hostPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        guard let destination = HostPort(parsing: hostPort, defaultPort: method == "CONNECT" ? nil : 80),
            destination.port > 0
        else { throw .badTarget }
        self.destination = destination
    }

    /// The value of the header `name`, the first if several.
    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// The URL this asks for, as the log shows it before redaction; `https://host:port` for a tunnel.
    public var url: String { isConnect ? "https://\(authority)" : target }

    /// `host:port`, an IPv6 address bracketed.
    public var authority: String { destination.description }

    /// The head sent on, with the blank line: the request line in origin form to a backend
    /// (absolute form to another proxy), the hop-by-hop headers (`HopByHop`) and this proxy's
    /// credential (`Proxy-Authorization`) replaced by `Connection: close` (one exchange per
    /// connection, so each is one line of the log) and `proxyAuthorization`, the next proxy's
    /// credential. Everything else goes as it came.
    public func forwarded(toProxy: Bool, proxyAuthorization: String?) -> String {
        var requestTarget = target
        if !toProxy {
            let rest = target.dropFirst("http://".count)
            let path = rest[(rest.firstIndex { "/?".contains($0) } ?? rest.endIndex)...]
            requestTarget = path.hasPrefix("/") ? String(path) : "/" + path
            if let hash = requestTarget.firstIndex(of: "#") { requestTarget = String(requestTarget[..<hash]) }
        }
        var kept = HopByHop.removed(from: headers)
        kept.remove(name: "proxy-authorization")
        var lines = ["\(method) \(requestTarget) \(version)"]
        lines += kept.map { "\($0.name): \($0.value)" }
        if let proxyAuthorization { lines.append("Proxy-Authorization: \(proxyAuthorization)") }
        lines.append("Connection: close")
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }
}

/// A request the proxy does not take, and the status it answers with.
public enum ProxyHeadError: Error, Equatable, Sendable, CustomStringConvertible {
    case badRequestLine, notPlainHTTP, notAbsolute, badTarget, tooLong

    public var status: Int {
        switch self {
        case .tooLong: 431
        case .notPlainHTTP: 501
        case .badRequestLine, .notAbsolute, .badTarget: 400
        }
    }

    public var description: String {
        switch self {
        case .badRequestLine: "not an HTTP/1 request line"
        case .notPlainHTTP: "only CONNECT and absolute-form http:// requests are taken"
        case .notAbsolute: "a request to a proxy names its absolute URL (GET http://host/path)"
        case .badTarget: "no host and port in the request's target"
        case .tooLong: "the request's head is over \(ProxyRequestHead.limit) bytes"
        }
    }
}
