import Foundation

/// One exchange of a source provider's host with its backend, as tokendash's loopback proxy saw
/// it: a plain-http request (its URL, status and answer's size) or an https tunnel (its host and
/// the bytes each way; what went inside is TLS). The proxy sees the bytes, not what the class
/// meant, so this is what a user would see on the wire.
public struct BackendExchange: Sendable, Equatable, Codable {
    public enum Way: String, Sendable, Codable {
        /// An absolute-form request (`GET http://host/path`).
        case http
        /// A `CONNECT host:port` tunnel.
        case tunnel
    }

    public var way: Way
    /// `GET`, `POST`…; `CONNECT` for a tunnel.
    public var method: String
    /// The URL, redacted (http), or `host:port` (tunnel).
    public var target: String
    /// The answer's status (http); nil for a tunnel, or when no answer came.
    public var status: Int?
    /// From the request's head to the answer's last byte (http), or to the tunnel's last byte.
    public var latency: TimeInterval
    /// Bytes from the host: the request's body (http), everything sent into the tunnel.
    public var bytesUp: Int
    /// Bytes to the host: the answer's body (http), everything out of the tunnel.
    public var bytesDown: Int
    /// The fault the proxy acted out, by its name (`http-500`), if any.
    public var fault: String?
    /// What went wrong on the way, in words (the backend unreachable, no answer), if anything.
    public var problem: String?

    public init(
        way: Way, method: String, target: String, status: Int? = nil, latency: TimeInterval, bytesUp: Int,
        bytesDown: Int,
        fault: String? = nil, problem: String? = nil
    ) {
        self.way = way
        self.method = method
        self.target = target
        self.status = status
        self.latency = latency
        self.bytesUp = bytesUp
        self.bytesDown = bytesDown
        self.fault = fault
        self.problem = problem
    }

    /// The log's line: `GET http://127.0.0.1:8080/session/driver -> 200, 812 B` or
    /// `tunnel example.com:443: 517 B up, 4.1 kB down`, then the fault and the problem.
    public var summary: String {
        var text: String
        switch way {
        case .http:
            text = "\(method) \(target) -> " + (status.map(String.init) ?? "no answer") + ", \(Self.size(bytesDown))"
        case .tunnel:
            text = "tunnel \(target): \(Self.size(bytesUp)) up, \(Self.size(bytesDown)) down"
        }
        if let fault { text += " (fault \(fault) at tokendash's proxy)" }
        if let problem { text += ": " + problem }
        return text
    }

    /// Whether the log shows it as a failure.
    public var failed: Bool { problem != nil || (status ?? 200) >= 400 }

    static func size(_ bytes: Int) -> String {
        bytes < 1000 ? "\(bytes) B" : String(format: "%.1f kB", Double(bytes) / 1000)
    }
}
