import Foundation

public struct TransportRequest: Sendable {
    public var url: URL
    public var headers: [HTTPHeader]
    public var timeout: TimeInterval
    public var maxBodyBytes: Int

    public init(url: URL, headers: [HTTPHeader] = [], timeout: TimeInterval = 10, maxBodyBytes: Int = 64 * 1024) {
        self.url = url
        self.headers = headers
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
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The one HTTP GET a provider makes. Real code uses `HTTPClientTransport` (module HTTPTransport); tests swap in fakes.
/// Implementations throw `FleetAuthError` (unreachable, timeout, bodyTooLarge, cancelled).
public protocol TokenTransport: Sendable {
    func get(_ request: TransportRequest) async throws -> TransportResponse
}
