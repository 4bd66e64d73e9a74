#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A host and a port as a request target, a `Host` header or a message names them: `host:port`,
/// an IPv6 address in brackets so its last group is not read as the port (RFC 9110 §7.2,
/// RFC 3986 §3.2.2). The one place tokendash writes and reads that form.
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    /// The name or address, an IPv6 address without brackets (as a socket connects to it).
    public let host: String
    public let port: Int

    /// `host` may come bracketed (from a URL's host); the brackets are not part of the address.
    public init(host: String, port: Int) {
        self.host = Self.bare(host)
        self.port = port
    }

    /// Reads `host:port` or `[v6]:port`; without a port, `defaultPort` (none: nil). An IPv6
    /// address without brackets, an empty host, or a port outside 0...65535 is not one.
    public init?(parsing text: some StringProtocol, defaultPort: Int? = nil) {
        let text = Substring(text)
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        let port: Int? = if let portText { Int(portText) } else { defaultPort }
        guard !host.isEmpty, let port, (0...65_535).contains(port) else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// `host:port`, an IPv6 address bracketed.
    public var description: String { Self.bracketed(host) + ":\(port)" }

    /// The host alone as a URL or a `Host` header writes it: an IPv6 address in brackets.
    public static func bracketed(_ host: String) -> String {
        let host = bare(host)
        return host.contains(":") ? "[\(host)]" : host
    }

    /// `host` without the brackets a URL gives an IPv6 address.
    public static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}

extension HostPort {
    /// Whether `host` is a numeric IPv4 or IPv6 address (no brackets), as a socket binds it.
    public static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Whether `host` only reaches this machine: `localhost`, 127.0.0.0/8 and ::1 (also as an
    /// IPv4-mapped 127 address), brackets or not. What `--allow-remote` is asked for beyond.
    public static func isLoopback(_ host: String) -> Bool {
        let host = bare(host)
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }
}
