import Foundation
import ProviderVocabulary
import TestSupport
import Testing
import TokenProviders
import TokenReading

@testable import TokenServer

/// Key files are written at test time into a private temporary directory, never into the repo.
struct KeyDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes `contents` to `name` with `mode`; returns the path.
    func write(_ name: String, _ contents: String, mode: Int = 0o600) throws -> String {
        let path = url.appendingPathComponent(name).path
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode])
        else {
            throw FleetAuthError.other("cannot create \(path)")
        }
        // createFile's mode is filtered by the umask; set it exactly.
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// A new RSA-2048 private key from openssl: PKCS#1 ("RSA PRIVATE KEY") or PKCS#8 ("PRIVATE KEY").
    func opensslKey(pkcs1: Bool) async throws -> String {
        let out = url.appendingPathComponent("openssl-\(UUID().uuidString).pem")
        let pid = try ChildProcess.spawn(
            ["/usr/bin/env", "openssl", "genrsa"] + (pkcs1 ? ["-traditional"] : []) + ["2048"],
            output: out.path, errors: "/dev/null")
        guard await ChildProcess.exit(of: pid).0 == 0 else { throw FleetAuthError.other("openssl genrsa failed") }
        return try String(contentsOf: out, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

@Suite(.timeLimit(.minutes(15))) struct SigningKeyTests {
    @Test(arguments: [true, false])
    func aPEMKeySignsVerifiableTokens(pkcs1: Bool) async throws {
        let dir = try KeyDirectory()
        defer { dir.remove() }
        let pem = try await dir.opensslKey(pkcs1: pkcs1)
        #expect(pem.hasPrefix(pkcs1 ? "-----BEGIN RSA PRIVATE KEY-----" : "-----BEGIN PRIVATE KEY-----"))
        let path = try dir.write("key.pem", pem)

        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(lifetime: 60, signingKey: .file(path)))
        let base = try await server.start()
        let s = RunningServer(server: server, base: base)
        defer { Task { await server.stop() } }
        let provider = ConsumerTokenProvider(endpoint: s.endpoint(.consumer), transport: s.transport)
        let token = try await provider.fetchToken(for: TripAuthorizationContext(tripID: "trip-pem"))
        let claims = try await s.verify(token)
        #expect(claims.authorization == ["tripid": "trip-pem"])
        #expect(claims.iss == TokenServerConfiguration.defaultIssuer)
        // The same file gives the same kid, so verifiers' caches survive a restart.
        #expect(try SigningKey.load(path: path).keyID == server.minter.key.keyID)
        #expect(server.minter.key.keyID != SharedKey.key.keyID)
    }

    @Test func aServiceAccountJSONKeyNamesKidAndIssuer() async throws {
        let dir = try KeyDirectory()
        defer { dir.remove() }
        let pem = try await dir.opensslKey(pkcs1: false)
        let account: [String: String] = [
            "type": "service_account", "project_id": "demo", "private_key_id": "0123abcd",
            "private_key": pem, "client_email": "fleet-minter@demo.iam.gserviceaccount.com",
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: account), as: UTF8.self)
        let path = try dir.write("service-account.json", json)

        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(signingKey: .file(path)))
        let base = try await server.start()
        let s = RunningServer(server: server, base: base)
        defer { Task { await server.stop() } }
        let provider = DriverTokenProvider(endpoint: s.endpoint(.driver), transport: s.transport)
        let token = try await provider.fetchToken(for: VehicleAuthorizationContext(vehicleID: "veh"))
        let claims = try await s.verify(token)
        #expect(claims.iss == "fleet-minter@demo.iam.gserviceaccount.com")
        #expect(claims.sub == "fleet-minter@demo.iam.gserviceaccount.com")
        #expect(try JWTInspector.decode(token).header["kid"] == .string("0123abcd"))
        let (_, jwks) = try await s.json("/.well-known/jwks.json")
        guard case .array(let keys)? = jwks["keys"] else {
            Issue.record("no keys")
            return
        }
        #expect(keys.first?["kid"] == .string("0123abcd"))
    }

    @Test(arguments: [0o644, 0o640, 0o604])
    func aKeyOthersCanReadIsRefused(mode: Int) async throws {
        let dir = try KeyDirectory()
        defer { dir.remove() }
        let pem = try await dir.opensslKey(pkcs1: true)
        let path = try dir.write("open.pem", pem, mode: mode)
        let expected = TokenServerError.keyFileTooOpen(path: path, mode: UInt16(mode))
        await #expect(throws: expected) {
            _ = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(signingKey: .file(path)))
        }
        #expect(expected.description.contains(path))
        #expect(expected.description.contains("chmod 600 \(path)"))
        #expect(!expected.description.contains("\n"))
    }

    @Test func aMissingFileIsNamed() {
        #expect(throws: TokenServerError.keyFileUnreadable(path: "/nonexistent/key.pem", reason: "no such file")) {
            _ = try SigningKey.load(path: "/nonexistent/key.pem")
        }
    }

    @Test(arguments: [
        ("garbage", "neither a PEM block"),
        ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "not a private key"),
        ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "cannot parse"),
        (#"{"type": "service_account", "client_email": "a@b"}"#, "no \"private_key\""),
        (#"{"type": "authorized_user"}"#, "authorized_user"),
    ])
    func unusableKeysSayWhy(contents: String, reason: String) throws {
        let dir = try KeyDirectory()
        defer { dir.remove() }
        let path = try dir.write("bad.key", contents)
        do {
            _ = try SigningKey.load(path: path)
            Issue.record("loaded \(contents)")
        } catch {
            guard case .invalidKey(let p, let why) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(p == path)
            #expect(why.contains(reason), "\(why)")
        }
    }
}
