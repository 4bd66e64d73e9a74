import FleetAuth
import Foundation
import FlyingFox
import TestSupport
import Testing

/// No whole token reaches any output unless asked for: the real binary against a backend that
/// puts tokens where they do not belong (an error body) as well as where they do.
@Suite(.serialized) struct SecretsEndToEndTests {
    static let secretSignature = "SECRET-SIGNATURE-abcdefghijklmnopqrstuvwxyz0123456789"
    /// The start of every test token's payload (`{"aud":"http`): a quoted body is cut to 80
    /// characters, which keeps the signature out anyway, so the payload is what a leak would show.
    static let payloadStart = TestJWT.encode(json: "{\"aud\":\"https://fleetengine").prefix(12)

    /// A Fleet-Engine-shaped token. Its issuer is no Google service account, so no key set is
    /// looked for and its signature is reported as not checked.
    static func token(_ kind: ProviderKind, id: String) -> String {
        TestJWT.make(kind: kind, id: id, lifetime: 600, account: TestJWT.nonServiceAccount, signature: secretSignature)
    }

    /// Trips get a 401 whose body quotes a token; vehicles get a good token.
    static func startBackend() async throws -> LoopbackServer {
        try await LoopbackServer.start { request in
            if request.path.hasPrefix("/t/") {
                return HTTPResponse(statusCode: .unauthorized, body: Data("{\"error\":\"revoked\",\"token\":\"\(token(.consumer, id: "trip-0001"))\"}".utf8))
            }
            let id = request.path.split(separator: "/").last.map(String.init) ?? ""
            let jwt = token(.driver, id: id)
            return HTTPResponse(statusCode: .ok, body: Data("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\(Int(Date().timeIntervalSince1970) + 600)}".utf8))
        }
    }

    static func watch(_ server: LoopbackServer, extra: [String]) async throws -> BinaryRunner.Result {
        try await BinaryRunner.run(["watch", "--duration", "2", "--update-interval", "0.5", "--summary",
                                    "--consumer-url", "\(server.base)/t/{tripId}", "--driver-url", "\(server.base)/v/{vehicleId}"] + extra)
    }

    @Test func noWholeTokenInAnyOutputByDefault() async throws {
        let server = try await Self.startBackend()
        defer { Task { await server.stop() } }
        let result = try await Self.watch(server, extra: [])
        #expect(result.status == 1, "the trip never got a token: \(result.stderr)")
        let output = result.stdout + result.stderr
        #expect(output.contains("\"event\":\"fetched\""), "the driver got its token")
        #expect(output.contains("backend answered HTTP 401 Unauthorized"), "the trip's failure is reported")
        #expect(!output.contains(Self.secretSignature.prefix(20)), "no signature, whole or in part, in: \(output.prefix(2000))")
        #expect(!output.contains(Self.payloadStart), "no payload, whole or in part, in: \(output.prefix(2000))")
    }

    @Test func revealShowsTheCachedTokenButNotTokensQuotedInErrors() async throws {
        let server = try await Self.startBackend()
        defer { Task { await server.stop() } }
        let result = try await Self.watch(server, extra: ["--reveal", "--events", "fetched,fetch_failed"])
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
