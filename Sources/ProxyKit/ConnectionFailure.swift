import NIOCore
import NIOPosix
import NIOSSL

/// A connection that failed, in the words every part of tokendash uses for it (its own transport,
/// the tap's 502, the provider's proxy's log): the name nobody resolves, the refusal, the timeout,
/// the TLS failure. Callers put the name of what they reached for in front.
public enum ConnectionFailure {
    /// The reason `error` gives for a failed connection to `host`; nil when it is none of the kinds named.
    public static func words(_ error: any Error, host: String) -> String? {
        if let error = error as? NIOConnectionError { return connectionFailure(error, host: host) }
        if let error = error as? IOError { return socketFailure(errno: error.errnoCode) }
        if case .connectTimeout? = error as? ChannelError { return "connection timed out" }
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        return nil
    }

    public static func connectionFailure(_ error: NIOConnectionError, host: String) -> String {
        if let attempt = error.connectionErrors.first, let io = attempt.error as? IOError,
            let reason = socketFailure(errno: io.errnoCode)
        {
            return reason
        }
        if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
            return "DNS: no such host \"\(host)\""
        }
        return "cannot connect: \(error.connectionErrors.map { "\($0.target): \($0.error)" }.joined(separator: "; "))"
    }

    public static func socketFailure(errno: Int32) -> String? {
        switch errno {
        case ECONNREFUSED: "connection refused"
        case ECONNRESET: "connection reset by the backend (TCP RST) before the response was complete"
        case EPIPE: "connection closed by the backend while the request was being sent"
        case ENETUNREACH: "network unreachable"
        case EHOSTUNREACH: "host unreachable"
        case ETIMEDOUT: "connection timed out"
        case EADDRNOTAVAIL: "address not available (no route from this host)"
        default: nil
        }
    }
}
