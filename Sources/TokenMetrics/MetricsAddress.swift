import Foundation
import NetworkAddresses

/// Where `--metrics` listens: `HOST:PORT`, `[IPv6]:PORT`, or a bare `PORT` (loopback). Only
/// loopback unless the operator passes `--allow-remote`: the series name the backend's health.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    /// A numeric address without brackets, as a socket binds it.
    public let host: String
    public let port: UInt16

    public static let defaultHost = "127.0.0.1"

    /// Parses `text`; `allowRemote` must be true for anything but a loopback address.
    public init(parsing text: String, allowRemote: Bool) throws(MetricsAddressError) {
        let parsed: HostPort
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let port = UInt16(text) else { throw .badPort(text) }
            parsed = HostPort(host: Self.defaultHost, port: Int(port))
        } else {
            guard let hostPort = HostPort(parsing: text) else { throw Self.refusal(text) }
            parsed = hostPort
        }
        let bound = parsed.host == "localhost" ? Self.defaultHost : parsed.host
        guard HostPort.isNumeric(bound) else { throw .notAnAddress(text) }
        guard allowRemote || HostPort.isLoopback(bound) else { throw .remoteNotAllowed(text) }
        self.host = bound
        self.port = UInt16(parsed.port)
    }

    /// Why `HostPort` read no address in `text`: the port after the last colon (past any bracketed
    /// address) is no number from 0 to 65535, or else the address itself is none.
    private static func refusal(_ text: String) -> MetricsAddressError {
        let tail = text.lastIndex(of: "]").map { text[text.index(after: $0)...] } ?? Substring(text)
        guard let colon = tail.lastIndex(of: ":") else { return .notAnAddress(text) }
        return UInt16(tail[tail.index(after: colon)...]) == nil ? .badPort(text) : .notAnAddress(text)
    }

    private init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The same host on the port actually bound (port 0 asks for a free one).
    public func bound(to port: UInt16) -> MetricsAddress { MetricsAddress(host: host, port: port) }

    public var description: String { HostPort(host: host, port: Int(port)).description }
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
