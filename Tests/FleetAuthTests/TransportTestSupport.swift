import FleetAuth
import Foundation
import HTTPTransport
import TestSupport

/// Runs `body` with a transport of its own trust and proxy, shut down afterwards.
func withTransport<T>(_ trust: HTTPClientTransport.Trust, proxy: ProxySettings = .direct,
                      _ body: (HTTPClientTransport) async throws -> T) async throws -> T {
    let transport = try HTTPClientTransport(trust: trust, proxy: proxy)
    do {
        let result = try await body(transport)
        await transport.shutdown()
        return result
    } catch {
        await transport.shutdown()
        throw error
    }
}
