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
    public init(status: Int, body: Data) { self.status = status; self.body = body }
}

/// The one HTTP GET a provider makes. Real code uses `URLSessionTransport`; tests swap in fakes.
/// Implementations throw `FleetAuthError` (unreachable, timeout, bodyTooLarge, cancelled).
public protocol TokenTransport: Sendable {
    func get(_ request: TransportRequest) async throws -> TransportResponse
}
