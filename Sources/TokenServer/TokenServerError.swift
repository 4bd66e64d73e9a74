import Foundation

/// What stops the embedded server from starting or a key from loading. Each case reads as one line.
public enum TokenServerError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    case invalidLifetime(TimeInterval)
    case remoteNotAllowed(String)
    case invalidHost(String)
    case bindFailed(address: String, reason: String)
    case keyFileUnreadable(path: String, reason: String)
    /// Group or others can read the key file; `mode` is its permission bits.
    case keyFileTooOpen(path: String, mode: UInt16)
    case invalidKey(path: String, reason: String)
    case keyGenerationFailed(String)
    case signingFailed(String)
    case cannotWriteLog(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidLifetime(let s):
            "token lifetime \(Self.format(s)) s is out of range: Fleet Engine accepts 1 to 3600 s"
        case .remoteNotAllowed(let host):
            "refusing to bind \(host): it is not a loopback address; pass --allow-remote to serve tokens to the network"
        case .invalidHost(let host): "cannot bind \(host): not an IPv4 or IPv6 address"
        case .bindFailed(let address, let reason): "cannot listen on \(address): \(reason)"
        case .keyFileUnreadable(let path, let reason): "cannot read key file \(path): \(reason)"
        case .keyFileTooOpen(let path, let mode):
            "key file \(path) is readable by group or others (mode \(String(mode, radix: 8))); run chmod 600 \(path)"
        case .invalidKey(let path, let reason): "key file \(path) holds no usable RSA private key: \(reason)"
        case .keyGenerationFailed(let why): "cannot generate an RSA key: \(why)"
        case .signingFailed(let why): "cannot sign the token: \(why)"
        case .cannotWriteLog(let path, let reason): "--fleet-engine-log \(path): \(reason)"
        }
    }

    public var errorDescription: String? { description }

    private static func format(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : String(s)
    }
}
