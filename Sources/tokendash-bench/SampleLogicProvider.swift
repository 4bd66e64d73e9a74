import Foundation
import ProviderVocabulary
import Synchronization

/// The baseline: Google's sample token provider ported as directly as Swift 6 allows, with a
/// lock where the sample had none. Cache check, fetch, store; no single-flight, no refresh-ahead.
final class SampleLogicProvider: Sendable {
    private struct AuthToken {
        let token: String
        let expiration: TimeInterval
        let id: String
    }

    private let transport: any TokenTransport
    private let endpoint: TokenEndpoint
    // Guards the cached token, the only state the sample keeps.
    private let authToken = Mutex<AuthToken?>(nil)

    init(endpoint: TokenEndpoint, transport: any TokenTransport) {
        self.endpoint = endpoint
        self.transport = transport
    }

    func fetchToken(id: String) async throws -> String {
        if let token = authToken.withLock({ t -> String? in
            guard let t, t.expiration > Date().timeIntervalSince1970, t.id == id else { return nil }
            return t.token
        }) {
            return token
        }
        let response = try await transport.send(
            TransportRequest(
                url: try endpoint.url(for: id), headers: [], timeout: endpoint.timeout,
                maxBodyBytes: endpoint.maxBodyBytes))
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let token = object[endpoint.tokenKey ?? "jwt"] as? String,
            let expiration = object[endpoint.expiryKey ?? "expirationTimestamp"] as? Double
        else {
            throw FleetAuthError.other("missingData")
        }
        // The Swift sample stores the expiration as an epoch in seconds; our backend sends milliseconds.
        authToken.withLock { $0 = AuthToken(token: token, expiration: expiration / 1000, id: id) }
        return token
    }
}
