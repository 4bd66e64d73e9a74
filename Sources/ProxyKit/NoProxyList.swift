import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `no_proxy` as curl reads it (CURLOPT_NOPROXY(3), https://curl.se/libcurl/c/CURLOPT_NOPROXY.html):
/// a comma-separated list; `*` matches every host; a name matches itself and every host under it
/// (`example.com` and `.example.com` both match `www.example.com`, neither `notexample.com`); IPv6
/// addresses without brackets; IP addresses in CIDR notation (`192.168.0.0/16`, curl 7.86 and
/// later). One addition curl lacks and Go's and wget's readers have: `host:port` matches that port only.
/// Entries that are none of these are skipped, as curl skips them.
public struct NoProxyList: Sendable, Equatable {
    enum Entry: Sendable, Equatable {
        case everything
        case domain(String, port: Int?)
        /// Network-order address bytes (4 or 16) and how many leading bits must match.
        case network([UInt8], bits: Int, port: Int?)
    }

    let entries: [Entry]
    /// The list as given, for `config check`.
    public let text: String

    public static let empty = NoProxyList("")

    public init(_ text: String) {
        self.text = text
        entries = text.split(separator: ",").compactMap { Self.entry(String($0).trimmingCharacters(in: .whitespaces)) }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// This list with `host` (any port) added.
    func adding(host: String) -> NoProxyList {
        NoProxyList(text.isEmpty ? host : text + "," + host)
    }

    /// Whether a request to `host` on `port` goes direct.
    public func matches(host rawHost: String, port: Int) -> Bool {
        var host = rawHost.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        let address = Self.addressBytes(host)
        return entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case .domain(let name, let wanted):
                guard wanted == nil || wanted == port else { return false }
                return host == name || host.hasSuffix("." + name)
            case .network(let network, let bits, let wanted):
                guard wanted == nil || wanted == port, let address, address.count == network.count else { return false }
                return Self.prefix(address, network, bits: bits)
            }
        }
    }

    private static func entry(_ raw: String) -> Entry? {
        guard !raw.isEmpty else { return nil }
        if raw == "*" { return .everything }
        var text = raw.lowercased()
        var port: Int?
        if text.hasPrefix("[") {
            // [v6] or [v6]:port
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            let inner = String(text[text.index(after: text.startIndex)..<close])
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65_535).contains(number) else { return nil }
                port = number
                text = inner
            } else {
                text = inner + after
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // One colon: host:port (an IPv6 address has several).
            guard let number = Int(text[text.index(after: colon)...]), (1...65_535).contains(number) else { return nil }
            port = number
            text = String(text[..<colon])
        }
        if let slash = text.firstIndex(of: "/") {
            guard let bytes = addressBytes(String(text[..<slash])), let bits = Int(text[text.index(after: slash)...]),
                (0...bytes.count * 8).contains(bits)
            else { return nil }
            return .network(bytes, bits: bits, port: port)
        }
        if let bytes = addressBytes(text) { return .network(bytes, bits: bytes.count * 8, port: port) }
        // A leading dot (curl's documented domain form) or `*.` (as some tools write it) adds nothing:
        // every name already matches the hosts under it.
        if text.hasPrefix("*.") { text.removeFirst(2) }
        while text.hasPrefix(".") { text.removeFirst() }
        while text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty else { return nil }
        return .domain(text, port: port)
    }

    /// The address bytes of an IPv4 or IPv6 literal; nil for a name.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func prefix(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        var left = bits
        for (x, y) in zip(a, b) where left > 0 {
            let take = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if x & mask != y & mask { return false }
            left -= take
        }
        return true
    }
}
