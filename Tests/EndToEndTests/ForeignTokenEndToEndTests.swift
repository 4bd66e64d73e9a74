import FlyingFox
import Foundation
import JSONValues
import ProviderVocabulary
import TestSupport
import Testing
import TokenReading

/// Tokens minted by Python's `cryptography` (scripts/mint-foreign-token.py), not jwt-kit: the real
/// binary must judge a stranger's tokens and key sets the same way it judges its own.
@Suite(.serialized, .timeLimit(.minutes(15))) struct ForeignTokenEndToEndTests {
    struct Minted: Decodable {
        var token: String
        var tampered: String
        var jwks: JSONValues.JSONValue
        var kid: String
    }

    static func mint(_ arguments: [String]) async throws -> Minted {
        let script = BinaryRunner.packageRoot.appendingPathComponent("scripts/mint-foreign-token.py").path
        let result = try await BinaryRunner.run(
            ["python3", script] + arguments, executable: URL(fileURLWithPath: "/usr/bin/env"))
        try #require(result.status == 0, "mint-foreign-token.py failed: \(result.stderr)")
        return try JSONDecoder().decode(Minted.self, from: Data(result.stdout.utf8))
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).json").path
    }

    /// A loopback backend serving `body` for every path, with `headers`.
    static func serve(
        _ body: @escaping @Sendable () -> Data,
        headers: @escaping @Sendable () -> [FlyingFox.HTTPHeader: String] = { [:] }
    )
        async throws -> LoopbackServer
    {
        try await LoopbackServer.start { _ in HTTPResponse(statusCode: .ok, headers: headers(), body: body()) }
    }

    @Test func decodeVerifiesAForeignTokenAgainstAKeySetFileAndRefusesATamperedOne() async throws {
        let jwks = Self.temporaryPath("foreign-jwks")
        defer { try? FileManager.default.removeItem(atPath: jwks) }
        let minted = try await Self.mint(["--claim", "tripid=trip-7", "--jwks-out", jwks])
        let good = try await BinaryRunner.run([
            "decode", "--jwks", jwks, "--trip-id", "trip-7", "--provider-id", "foreign-project", minted.token,
        ])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("Fleet Engine would accept it\n"))
        #expect(good.stdout.contains("✓ signature      RS256 verified with key python-key-1 from \(jwks)"))
        #expect(
            good.stdout.contains(
                "✓ iss/sub        python-minter@foreign-project.iam.gserviceaccount.com (project foreign-project)"))

        let forged = try await BinaryRunner.run(["decode", "--jwks", jwks, minted.tampered])
        #expect(forged.status == 1)
        #expect(
            forged.stdout.contains("✗ signature      signature does not verify against key python-key-1 from \(jwks)"))
        #expect(forged.stderr.hasPrefix("tokendash decode: Fleet Engine would refuse this token: signature: "))
    }

    /// java-fleetengine-auth's ImpersonatedSigner mints with no kid; Fleet Engine accepts it. The
    /// signature is found among the account's keys, and the key that signed it is named.
    @Test func decodeAcceptsAJavaFleetEngineAuthTokenWithNoKid() async throws {
        let jwks = Self.temporaryPath("java-jwks")
        defer { try? FileManager.default.removeItem(atPath: jwks) }
        let minted = try await Self.mint([
            "--claim", "vehicleid=vehicle-7", "--shape", "java-impersonated", "--extra-keys", "2",
            "--lifetime", "3600", "--jwks-out", jwks,
        ])
        let result = try await BinaryRunner.run(["decode", "--jwks", jwks, "--vehicle-id", "vehicle-7", minted.token])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains("rules (vehicle ID vehicle-7): Fleet Engine would accept it\n"), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                "  · kid            no kid: the signature is checked against every key of the issuer's key set"))
        #expect(
            result.stdout.contains(
                "  ✓ signature      RS256 verified with key python-key-1 from \(jwks) (no kid: the set's 3 keys tried in turn)"
            ),
            "\(result.stdout)")
        let forged = try await BinaryRunner.run(["decode", "--jwks", jwks, minted.tampered])
        #expect(forged.status == 1)
        #expect(
            forged.stdout.contains(
                "  ✗ signature      signature does not verify against any of the 3 keys from \(jwks) (no kid)"))
    }

    /// A backend minting as java-fleetengine-auth does is healthy: `watch` caches and serves its
    /// tokens, and the dashboard shows both panes ok.
    @Test func aBackendMintingJavaFleetEngineAuthTokensIsHealthy() async throws {
        let tripKeys = Self.temporaryPath("java-trip-jwks")
        let vehicleKeys = Self.temporaryPath("java-vehicle-jwks")
        let jwks = Self.temporaryPath("java-both-jwks")
        defer { for path in [tripKeys, vehicleKeys, jwks] { try? FileManager.default.removeItem(atPath: path) } }
        let java = ["--shape", "java-impersonated", "--extra-keys", "1", "--lifetime", "3600"]
        let trip = try await Self.mint(
            ["--claim", "tripid=trip-0001", "--kid", "trip-key", "--jwks-out", tripKeys] + java)
        let vehicle = try await Self.mint(
            ["--claim", "vehicleid=vehicle-0001", "--kid", "vehicle-key", "--jwks-out", vehicleKeys] + java)
        // One key set with both minters' keys, as one account's set would hold them.
        let keys = try [tripKeys, vehicleKeys].flatMap { path -> [Any] in
            let set =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            return set?["keys"] as? [Any] ?? []
        }
        try JSONSerialization.data(withJSONObject: ["keys": keys]).write(to: URL(fileURLWithPath: jwks))
        let expiry = Int(Date().timeIntervalSince1970 + 3600) * 1000
        let server = try await LoopbackServer.start { request in
            let jwt = request.path.hasPrefix("/t/") ? trip.token : vehicle.token
            return HTTPResponse(
                statusCode: .ok, body: Data("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\(expiry)}".utf8))
        }
        defer { Task { await server.stop() } }
        let backend = [
            "--jwks", jwks, "--consumer-url", "\(server.base)/t/{tripId}", "--driver-url",
            "\(server.base)/v/{vehicleId}",
        ]

        let result = try await BinaryRunner.run(
            ["watch", "--duration", "1.5", "--summary", "--events", "fetched,fetch_failed"] + backend)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let fetched = result.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"fetched\"") }
        #expect(fetched.count >= 2 && fetched.allSatisfy { $0.contains("\"signature\":\"ok\"") }, "\(result.stdout)")
        #expect(!result.stdout.contains("fetch_failed"), "\(result.stdout)")

        let script = BinaryRunner.packageRoot.appendingPathComponent("scripts/e2e-dashboard-check.sh").path
        let (status, text) = try await BinaryRunner.runScript(
            [
                "/usr/bin/env", "E2E_EXPECT=Trip ID    trip-0001  ● ok\nVehicle ID vehicle-0001  ● ok",
                "E2E_FORBID=failing\ntoken rejected",
                "bash", script, BinaryRunner.binary.path, "--update-interval", "1",
            ] + backend)
        #expect(status == 0, "\(text)")
        #expect(text.contains("e2e-dashboard-check: ok"))
    }

    @Test func decodeFetchesAKeySetURLAndNamesAnUnknownKid() async throws {
        let minted = try await Self.mint(["--claim", "vehicleid=v-1"])
        let other = try await Self.mint(["--claim", "vehicleid=v-1", "--kid", "rotated-away"])
        let keySet = Data(minted.jwks.description.utf8)
        let server = try await Self.serve({ keySet })
        defer { Task { await server.stop() } }
        let base = server.base
        let good = try await BinaryRunner.run(["decode", "--jwks", "\(base)/jwks.json", minted.token])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("✓ signature      RS256 verified with key python-key-1 from \(base)/jwks.json"))
        let unknown = try await BinaryRunner.run(["decode", "--jwks", "\(base)/jwks.json", other.token])
        #expect(unknown.status == 1)
        #expect(
            unknown.stdout.contains(
                "✗ signature      kid rotated-away not in the JWKS at \(base)/jwks.json (key rotated or deleted?)"))
    }

    @Test func decodeRefusesABadKeySetFileBeforeAnything() async throws {
        let path = Self.temporaryPath("bad-jwks")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await BinaryRunner.run(["decode", "--jwks", path, "a.b.c"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--jwks: \(path) is not a JWKS"))
    }

    /// `watch` against a backend whose clock (and so its tokens) runs 20 minutes ahead: the token
    /// is refused with the reason, and the skew is measured from the `Date` header.
    @Test func watchRefusesTokensFromABackendTwentyMinutesAheadAndVerifiesGoodOnes() async throws {
        let jwks = Self.temporaryPath("watch-jwks")
        defer { try? FileManager.default.removeItem(atPath: jwks) }
        let ahead = try await Self.mint(["--claim", "tripid=trip-0001", "--iat-offset", "1200", "--lifetime", "1800"])
        let good = try await Self.mint(["--claim", "vehicleid=vehicle-0001", "--jwks-out", jwks])
        let expiry = Int(Date().timeIntervalSince1970 + 600) * 1000
        let tripServer = try await Self.serve(
            { Data("{\"jwt\":\"\(ahead.token)\",\"expirationTimestamp\":\(expiry)}".utf8) },
            headers: { [.init("Date"): HTTPDate.format(Date().addingTimeInterval(1200))] })
        let vehicleServer = try await Self.serve(
            { Data("{\"jwt\":\"\(good.token)\",\"expirationTimestamp\":\(expiry)}".utf8) },
            headers: { [.init("Date"): HTTPDate.format(Date())] })
        defer {
            Task {
                await tripServer.stop()
                await vehicleServer.stop()
            }
        }
        let result = try await BinaryRunner.run([
            "watch", "--duration", "1.5", "--events", "fetched,fetch_failed", "--jwks", jwks,
            "--consumer-url", "\(tripServer.base)/t/{tripId}", "--driver-url", "\(vehicleServer.base)/v/{vehicleId}",
        ])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let failed = try #require(
            lines.first { $0.contains("\"event\":\"fetch_failed\"") && $0.contains("\"provider\":\"consumer\"") },
            "\(result.stdout)")
        // 1199 or 1200: the token was minted a moment before the watch began.
        #expect(
            failed.contains("token rejected: iat: iat is 1")
                && failed.contains(" s in the future; Fleet Engine refuses beyond 600 s"), "\(failed)")
        // The cause goes with it: the backend's clock, read from its Date header.
        #expect(
            failed.contains("; clock: backend clock is 1")
                && failed.contains("s ahead of this machine's (Date header)"), "\(failed)")
        let fetched = try #require(
            lines.first { $0.contains("\"event\":\"fetched\"") && $0.contains("\"provider\":\"driver\"") },
            "\(result.stdout)")
        #expect(fetched.contains("\"signature\":\"ok\""))
        #expect(
            fetched.contains("\"shape\":\"on-demand sample {jwt, expirationTimestamp}\""), "the shape found is said")
        #expect(fetched.contains("\"fingerprint\":\"\(TokenFingerprint.of(good.token))\""))
        // The Date header has whole seconds: the skew of a backend in step is -1, 0 or 1.
        let fetchedObject = try #require(try JSONSerialization.jsonObject(with: Data(fetched.utf8)) as? [String: Any])
        let skew = try #require(fetchedObject["clock_skew_s"] as? Int, "\(fetched)")
        #expect(abs(skew) <= 1, "\(fetched)")
        #expect(
            !lines.contains { $0.contains("\"event\":\"fetched\"") && $0.contains("\"provider\":\"consumer\"") },
            "the skewed token was never served")
    }
}
