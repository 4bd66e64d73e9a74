import Foundation

/// The head of a request the customer's host sent to tokendash's loopback proxy: `CONNECT
/// host:port` (https) or an absolute-form request (`GET http://host:port/path`, plain http), as
/// curl (and so Linux's URLSession) sends them to a proxy.
struct ProxyRequestHead: Equatable, Sendable {
    /// The longest head taken: nginx's default for a request's headers is 8 KiB per line, 32 KiB in all.
    static let limit = 16_384

    var method: String
    /// The request target as sent: `host:port`, or the absolute URL.
    var target: String
    var version: String
    /// The header lines after the request line, as sent.
    var headerLines: [String]
    /// Where it goes (an IPv6 address without brackets).
    var host: String
    var port: Int

    var isConnect: Bool { method == "CONNECT" }

    /// Reads `head`, the bytes up to and without the blank line.
    init(parsing head: String) throws(ProxyHeadError) {
        let lines = head.components(separatedBy: "\r\n")
        let parts = (lines.first ?? "").split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[2].hasPrefix("HTTP/1.") else { throw .badRequestLine }
        method = String(parts[0])
        target = String(parts[1])
        version = String(parts[2])
        headerLines = lines.dropFirst().filter { !$0.isEmpty }
        let authority: Substring
        if method == "CONNECT" {
            authority = parts[1]
        } else {
            guard target.lowercased().hasPrefix("http://") else {
                throw target.lowercased().hasPrefix("https://") || !target.hasPrefix("/") ? .notPlainHTTP : .notAbsolute
            }
            let rest = target.dropFirst("http://".count)
            authority = rest[..<(rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex)]
        }
        // User info in an absolute URL is the target's, not the proxy's: what follows the last @.
        let hostPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let (host, port) = try Self.split(hostPort, defaultPort: method == "CONNECT" ? nil : 80)
        self.host = host
        self.port = port
    }

    private static func split(_ authority: Substring, defaultPort: Int?) throws(ProxyHeadError) -> (String, Int) {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .badTarget }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw .badTarget }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .badTarget }
        let port: Int? = if let portText { Int(portText) } else { defaultPort }
        guard let port, (1...65_535).contains(port) else { throw .badTarget }
        return (String(host), port)
    }

    /// The URL this asks for, as the log shows it before redaction; `https://host:port` for a tunnel.
    var url: String {
        isConnect ? "https://\(authority)" : target
    }

    /// `host:port`, an IPv6 address bracketed.
    var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// The head sent on, with the blank line: the request line in origin form to a backend
    /// (absolute form to another proxy), the hop-by-hop headers meant for this proxy
    /// (`Proxy-Authorization`, `Proxy-Connection`, `Connection`) replaced by `Connection: close`
    /// (one exchange per connection, so each is one line of the log) and `proxyAuthorization`, the
    /// next proxy's credential. Everything else goes as it came.
    func forwarded(toProxy: Bool, proxyAuthorization: String?) -> String {
        var requestTarget = target
        if !toProxy {
            let rest = target.dropFirst("http://".count)
            let path = rest[(rest.firstIndex { "/?".contains($0) } ?? rest.endIndex)...]
            requestTarget = path.hasPrefix("/") ? String(path) : "/" + path
            if let hash = requestTarget.firstIndex(of: "#") { requestTarget = String(requestTarget[..<hash]) }
        }
        let hopByHop = ["proxy-authorization:", "proxy-connection:", "connection:", "keep-alive:"]
        var lines = ["\(method) \(requestTarget) \(version)"]
        lines += headerLines.filter { line in !hopByHop.contains { line.lowercased().hasPrefix($0) } }
        if let proxyAuthorization { lines.append("Proxy-Authorization: \(proxyAuthorization)") }
        lines.append("Connection: close")
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }
}

/// A request the proxy does not take, and the status it answers with.
enum ProxyHeadError: Error, Equatable, CustomStringConvertible {
    case badRequestLine, notPlainHTTP, notAbsolute, badTarget, tooLong

    var status: Int {
        switch self {
        case .tooLong: 431
        case .notPlainHTTP: 501
        case .badRequestLine, .notAbsolute, .badTarget: 400
        }
    }

    var description: String {
        switch self {
        case .badRequestLine: "not an HTTP/1 request line"
        case .notPlainHTTP: "only CONNECT and absolute-form http:// requests are taken"
        case .notAbsolute: "a request to a proxy names its absolute URL (GET http://host/path)"
        case .badTarget: "no host and port in the request's target"
        case .tooLong: "the request's head is over \(ProxyRequestHead.limit) bytes"
        }
    }
}
