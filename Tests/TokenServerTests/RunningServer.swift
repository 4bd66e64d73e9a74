import Foundation
import HTTPTransport
import JSONValues
import JWTKit
import ProviderVocabulary
import TestSupport
import Testing

@testable import TokenServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One RSA key for the whole test run: generating one per server would dominate test time.
enum SharedKey {
    static let key: SigningKey = {
        do { return try SigningKey.generate() } catch { fatalError("cannot generate a test key: \(error)") }
    }()
}

/// An embedded server on a free loopback port for one test.
struct RunningServer {
    let server: EmbeddedTokenServer
    let base: URL

    static func start(lifetime: TimeInterval = 3600) async throws -> RunningServer {
        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(lifetime: lifetime), key: SharedKey.key)
        let base = try await server.start()
        return RunningServer(server: server, base: base)
    }

    var transport: HTTPClientTransport { sharedTransport }

    func endpoint(_ kind: ProviderKind, timeout: TimeInterval = 5) -> TokenEndpoint {
        var endpoint = TokenEndpoint.sampleBackend(kind, base: base.absoluteString)
        endpoint.timeout = timeout
        return endpoint
    }

    /// A raw request, for what providers do not show: status, headers, body.
    func request(_ path: String, method: String = "GET") async throws -> (
        status: Int, headers: [String: String], body: Data
    ) {
        guard let url = URL(string: base.absoluteString + path) else { throw FleetAuthError.invalidURL(path) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FleetAuthError.other("not HTTP") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return (http.statusCode, headers, data)
    }

    func json(_ path: String, method: String = "GET") async throws -> (status: Int, json: JSONValue) {
        let (status, _, body) = try await request(path, method: method)
        return (status, try JSONValue.decode(body))
    }

    /// Verifies `token`'s signature against the JWKS the server publishes, as a client would.
    func verify(_ token: String) async throws -> FleetEngineClaims {
        let (status, _, body) = try await request("/.well-known/jwks.json")
        #expect(status == 200)
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: String(decoding: body, as: UTF8.self))
        return try await keys.verify(token, as: FleetEngineClaims.self)
    }

    func stop() async { await server.stop() }
}

/// Runs `body` with a fresh server, stopping it afterwards whatever happens.
func withServer(lifetime: TimeInterval = 3600, _ body: (RunningServer) async throws -> Void) async throws {
    let running = try await RunningServer.start(lifetime: lifetime)
    do { try await body(running) } catch {
        await running.stop()
        throw error
    }
    await running.stop()
}
