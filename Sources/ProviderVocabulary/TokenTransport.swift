import Foundation

public struct TransportRequest: Sendable {
    /// `GET` for token and key fetches; Fleet Engine calls also `PUT` and `PATCH`.
    public var method: String
    public var url: URL
    public var headers: [HTTPHeader]
    /// The request body (JSON, sent with `Content-Type: application/json`), nil for none.
    public var body: Data?
    public var timeout: TimeInterval
    public var maxBodyBytes: Int

    public init(
        method: String = "GET", url: URL, headers: [HTTPHeader] = [], body: Data? = nil,
        timeout: TimeInterval = 10, maxBodyBytes: Int = 64 * 1024
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }
}

public struct TransportResponse: Sendable {
    public var status: Int
    public var body: Data
    /// Response headers with lower-cased names (HTTP header names are case-insensitive).
    /// Set once, by init, so the names stay lower-cased for `header(_:)`.
    public private(set) var headers: [String: String]

    public init(status: Int, body: Data, headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        // Names already lower-case ASCII (the tap's, for every answer it reads) are kept as they
        // are: `lowercased()` would give them back unchanged.
        let lowered = headers.keys.allSatisfy { name in
            name.utf8.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        }
        self.headers =
            lowered
            ? headers
            : Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The one HTTP GET a provider makes. Real code uses `HTTPClientTransport` (module HTTPTransport); tests swap in fakes.
/// Implementations throw `FleetAuthError` (unreachable, timeout, bodyTooLarge, cancelled).
public protocol TokenTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
