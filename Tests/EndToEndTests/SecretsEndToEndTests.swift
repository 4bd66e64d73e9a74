import FlyingFox
import Foundation
import ProviderVocabulary
import TestSupport
import Testing

/// No whole token reaches any output unless asked for: the real binary against a backend that
/// puts tokens where they do not belong (an error body) as well as where they do.
@Suite(.serialized, .timeLimit(.minutes(15))) struct SecretsEndToEndTests {
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
                return HTTPResponse(
                    statusCode: .unauthorized,
                    body: Data("{\"error\":\"revoked\",\"token\":\"\(token(.consumer, id: "trip-0001"))\"}".utf8))
            }
            let id = request.path.split(separator: "/").last.map(String.init) ?? ""
            let jwt = token(.driver, id: id)
            return HTTPResponse(
                statusCode: .ok,
                body: Data(
                    "{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\(Int(Date().timeIntervalSince1970) + 600)}".utf8))
        }
    }

    static func watch(_ server: LoopbackServer, extra: [String]) async throws -> BinaryRunner.Result {
        try await BinaryRunner.run(
            [
                "watch", "--duration", "2", "--update-interval", "0.5", "--summary",
                "--consumer-url", "\(server.base)/t/{tripId}", "--driver-url", "\(server.base)/v/{vehicleId}",
            ] + extra)
    }

    @Test func noWholeTokenInAnyOutputByDefault() async throws {
        let server = try await Self.startBackend()
        defer { Task { await server.stop() } }
        let result = try await Self.watch(server, extra: [])
        #expect(result.status == 1, "the trip never got a token: \(result.stderr)")
        let output = result.stdout + result.stderr
        #expect(output.contains("\"event\":\"fetched\""), "the driver got its token")
        #expect(output.contains("backend answered HTTP 401 Unauthorized"), "the trip's failure is reported")
        #expect(
            !output.contains(Self.secretSignature.prefix(20)),
            "no signature, whole or in part, in: \(output.prefix(2000))")
        #expect(!output.contains(Self.payloadStart), "no payload, whole or in part, in: \(output.prefix(2000))")
    }

    @Test func revealShowsTheCachedTokenButNotTokensQuotedInErrors() async throws {
        let server = try await Self.startBackend()
        defer { Task { await server.stop() } }
        let result = try await Self.watch(server, extra: ["--reveal", "--events", "fetched,fetch_failed"])
        #expect(result.status == 1, "the trip never got a token: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let fetched = lines.filter { $0.contains("\"event\":\"fetched\"") }
        #expect(
            !fetched.isEmpty && fetched.allSatisfy { $0.contains(Self.secretSignature) },
            "--reveal prints the whole token")
        let failed = lines.filter { $0.contains("\"event\":\"fetch_failed\"") }
        #expect(
            !failed.isEmpty && failed.allSatisfy { !$0.contains(Self.payloadStart) },
            "an error body's token stays redacted")
        #expect(
            lines.allSatisfy {
                $0.contains("\"event\":\"fetched\"") || $0.contains("\"event\":\"fetch_failed\"")
                    || $0.contains("\"event\":\"summary\"")
            },
            "--events filters the lines")
    }

    /// Every output path, with every kind of secret at once: a URL with a password, a JWT in its
    /// query (`?assertion=`) and an API key; a `--header` value; and a backend whose 401 quotes
    /// the Authorization header and the URL back. None may show whole, anywhere, without --reveal:
    /// `watch`'s banner, lines and errors, the recording, its replay, `config check`, a bad flag's
    /// error, the dashboard's screen and its snapshot.
    @Test func noSecretInAnyOutputOfAnyCommand() async throws {
        let headerSecret = "hdr-secret-value-42"
        let password = "pass-word-123"
        let apiKey = "api-key-value-XYZ"
        let assertion = Self.token(.consumer, id: "in-a-url")
        let server = try await LoopbackServer.start { request in
            let authorization = request.headers[FlyingFox.HTTPHeader("Authorization")] ?? ""
            return HTTPResponse(
                statusCode: .unauthorized,
                body: Data(
                    "{\"error\":\"bad credentials\",\"you_sent\":\"Authorization: \(authorization)\",\"url\":\"\(request.path)?\(request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))\"}"
                        .utf8))
        }
        defer { Task { await server.stop() } }
        let host = server.base.replacingOccurrences(of: "http://", with: "")
        let query = "?assertion=\(assertion)&api_key=\(apiKey)"
        let consumer = "http://fleet:\(password)@\(host)/t/{tripId}\(query)"
        let driver = "http://fleet:\(password)@\(host)/v/{vehicleId}\(query)"
        let backend = [
            "--consumer-url", consumer, "--driver-url", driver, "--header", "Authorization: Bearer \(headerSecret)",
        ]
        let forbidden = [
            headerSecret, password, apiKey, String(Self.secretSignature.prefix(20)), String(Self.payloadStart),
        ]
        func expectNoSecret(_ text: String, _ place: String) {
            for secret in forbidden {
                #expect(!text.contains(secret), "\(place) shows \(secret): \(text.prefix(3000))")
            }
        }

        let recording = FileManager.default.temporaryDirectory.appendingPathComponent(
            "secrets-\(UUID().uuidString).jsonl"
        ).path
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let watch = try await BinaryRunner.run(
            ["watch", "--duration", "1.5", "--update-interval", "0.5", "--summary", "--record", recording] + backend)
        #expect(watch.stderr.contains("tokendash watch: "), "the banner is there to be checked: \(watch.stderr)")
        #expect(
            watch.stdout.contains("backend answered HTTP 401"),
            "the backend's answer is reported: \(watch.stdout.prefix(2000))")
        expectNoSecret(watch.stdout, "watch's stdout")
        expectNoSecret(watch.stderr, "watch's stderr")
        let recorded = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(recorded.contains("fetch_failed"))
        expectNoSecret(recorded, "the recording")
        let replay = try await BinaryRunner.run(["replay", recording, "--to-watch"])
        expectNoSecret(replay.stdout + replay.stderr, "replay --to-watch")

        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("tokendash"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        try Data(
            """
            profiles:
              leaky:
                consumer-url: \(consumer)
                driver-url: \(driver)
                headers:
                  X-Api-Key: \(headerSecret)
            """.utf8
        ).write(to: home.appendingPathComponent("tokendash/config.yaml"))
        let check = try await BinaryRunner.run(
            ["config", "check", "--profile", "leaky"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(check.status == 0, "\(check.stderr)")
        expectNoSecret(check.stdout + check.stderr, "config check")

        let badFlag = try await BinaryRunner.run([
            "watch", "--consumer-url", "ftp://fleet:\(password)@\(host)/t\(query)", "--driver-url", driver,
        ])
        #expect(badFlag.status == 64)
        expectNoSecret(badFlag.stderr, "a bad flag's error")
        let badHeader = try await BinaryRunner.run(["watch", "--header", headerSecret])
        #expect(badHeader.status == 64)
        expectNoSecret(badHeader.stderr, "a bad --header's error")

        let script = BinaryRunner.packageRoot.appendingPathComponent("scripts/e2e-dashboard-check.sh").path
        let (status, text) = try await BinaryRunner.runScript(
            [
                "/usr/bin/env", "E2E_EXPECT=backend answered HTTP 401",
                "E2E_FORBID=" + forbidden.joined(separator: "\n"),
                "bash", script, BinaryRunner.binary.path, "--update-interval", "1",
            ] + backend)
        #expect(status == 0, "\(text)")
        #expect(text.contains("e2e-dashboard-check: ok"))
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
