import Foundation
import ProxyKit

/// Where `--metrics` listens: `HOST:PORT`, `[IPv6]:PORT`, or a bare `PORT` (loopback). Only
/// loopback unless the operator passes `--allow-remote`: the series name the backend's health.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    /// A numeric address without brackets, as a socket binds it.
    public let host: String
    public let port: UInt16

    public static let defaultHost = "127.0.0.1"

    /// Parses `text`; `allowRemote` must be true for anything but a loopback address.
    public init(parsing text: String, allowRemote: Bool) throws(MetricsAddressError) {
        let host: String
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .notAnAddress(text) }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            // An IPv6 address must be bracketed so its last group is not read as the port.
            guard !host.contains(":") else { throw .notAnAddress(text) }
        } else {
            host = Self.defaultHost
            portText = Substring(text)
        }
        guard let port = UInt16(portText) else { throw .badPort(text) }
        let bound = host == "localhost" ? Self.defaultHost : host
        guard Self.isNumeric(bound) else { throw .notAnAddress(text) }
        guard allowRemote || Self.isLoopback(bound) else { throw .remoteNotAllowed(text) }
        self.host = bound
        self.port = port
    }

    private init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The same host on the port actually bound (port 0 asks for a free one).
    public func bound(to port: UInt16) -> MetricsAddress { MetricsAddress(host: host, port: port) }

    public var description: String { HostPort(host: host, port: Int(port)).description }

    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// 127.0.0.0/8 and ::1 (also as an IPv4-mapped 127 address).
    static func isLoopback(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }
}

/// Why a `--metrics` address was refused, as one line.
public enum MetricsAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAnAddress(String)
    case badPort(String)
    case remoteNotAllowed(String)

    public var description: String {
        switch self {
        case .notAnAddress(let text):
            "--metrics \(text): expected HOST:PORT with a numeric IPv4 address or a bracketed IPv6 one, e.g. 127.0.0.1:9464"
        case .badPort(let text): "--metrics \(text): the port must be a number from 0 to 65535"
        case .remoteNotAllowed(let text):
            "--metrics \(text): not a loopback address; pass --allow-remote to serve metrics to the network"
        }
    }
}
