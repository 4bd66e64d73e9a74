import FleetAuth
import Foundation
import FlyingFox
import Testing

/// No whole token reaches any output unless asked for: the real binary against a backend that
/// puts tokens where they do not belong (an error body) as well as where they do.
@Suite(.serialized) struct SecretsEndToEndTests {
    static let secretSignature = "SECRET-SIGNATURE-abcdefghijklmnopqrstuvwxyz0123456789"
    /// The start of every test token's payload (`{"aud":"http`): a quoted body is cut to 80
    /// characters, which keeps the signature out anyway, so the payload is what a leak would show.
    static let payloadStart = base64URL("{\"aud\":\"https://fleetengine").prefix(12)

    static func base64URL(_ json: String) -> String { JWTInspector.base64URLEncode(Data(json.utf8)) }

    /// A Fleet-Engine-shaped token. Its issuer is no Google service account, so no key set is
    /// looked for and its signature is reported as not checked.
    static func token(claim: String, id: String, lifetime: Int = 600) -> String {
        let now = Int(Date().timeIntervalSince1970)
        let claims = "{\"aud\":\"https://fleetengine.googleapis.com/\",\"iss\":\"minter@example.com\",\"sub\":\"minter@example.com\",\"iat\":\(now),\"exp\":\(now + lifetime),\"authorization\":{\"\(claim)\":\"\(id)\"}}"
        return base64URL("{\"alg\":\"RS256\",\"kid\":\"k1\",\"typ\":\"JWT\"}") + "." + base64URL(claims) + "." + secretSignature
    }

    /// Trips get a 401 whose body quotes a token; vehicles get a good token.
    static func startBackend() async throws -> (HTTPServer, String) {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 5, logger: .disabled)
        await server.appendRoute("GET /t/*") { _ in
            HTTPResponse(statusCode: .unauthorized, body: Data("{\"error\":\"revoked\",\"token\":\"\(token(claim: "tripid", id: "trip-0001"))\"}".utf8))
        }
        await server.appendRoute("GET /v/*") { request in
            let id = request.path.split(separator: "/").last.map(String.init) ?? ""
            let jwt = token(claim: "vehicleid", id: id)
            return HTTPResponse(statusCode: .ok, body: Data("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\(Int(Date().timeIntervalSince1970) + 600)}".utf8))
        }
        Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw CocoaError(.featureUnsupported) }
        return (server, "http://127.0.0.1:\(port)")
    }

    /// Runs the binary off the cooperative pool: it blocks until the process exits, and the
    /// in-process backend needs the pool's threads meanwhile.
    static func watch(_ base: String, extra: [String]) async throws -> BinaryRunner.Result {
        let arguments = ["watch", "--duration", "2", "--update-interval", "0.5", "--summary",
                         "--consumer-url", "\(base)/t/{tripId}", "--driver-url", "\(base)/v/{vehicleId}"] + extra
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try BinaryRunner.runBlocking(arguments) }) }.start()
        }
    }

    @Test func noWholeTokenInAnyOutputByDefault() async throws {
        let (server, base) = try await Self.startBackend()
        defer { Task { await server.stop(timeout: 1) } }
        let result = try await Self.watch(base, extra: [])
        #expect(result.status == 1, "the trip never got a token: \(result.stderr)")
        let output = result.stdout + result.stderr
        #expect(output.contains("\"event\":\"fetched\""), "the driver got its token")
        #expect(output.contains("backend answered HTTP 401 Unauthorized"), "the trip's failure is reported")
        #expect(!output.contains(Self.secretSignature.prefix(20)), "no signature, whole or in part, in: \(output.prefix(2000))")
        #expect(!output.contains(Self.payloadStart), "no payload, whole or in part, in: \(output.prefix(2000))")
    }

    @Test func revealShowsTheCachedTokenButNotTokensQuotedInErrors() async throws {
        let (server, base) = try await Self.startBackend()
        defer { Task { await server.stop(timeout: 1) } }
        let result = try await Self.watch(base, extra: ["--reveal", "--events", "fetched,fetch_failed"])
        #expect(result.status == 1, "the trip never got a token: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let fetched = lines.filter { $0.contains("\"event\":\"fetched\"") }
        #expect(!fetched.isEmpty && fetched.allSatisfy { $0.contains(Self.secretSignature) }, "--reveal prints the whole token")
        let failed = lines.filter { $0.contains("\"event\":\"fetch_failed\"") }
        #expect(!failed.isEmpty && failed.allSatisfy { !$0.contains(Self.payloadStart) }, "an error body's token stays redacted")
        #expect(lines.allSatisfy { $0.contains("\"event\":\"fetched\"") || $0.contains("\"event\":\"fetch_failed\"") || $0.contains("\"event\":\"summary\"") },
                "--events filters the lines")
    }

    @Test func anUnknownEventNameIsAUsageError() async throws {
        let result = try await BinaryRunner.run(["watch", "--events", "fetched,explode"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--events: unknown explode; known: cache_hit, fetch_started"))
        let empty = try await BinaryRunner.run(["watch", "--events", ","])
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("--events needs at least one event name"))
    }
}
