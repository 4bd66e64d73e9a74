import FlyingFox
import Foundation
import HTTPTransport
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenProviders
import TokenReading
import TokenSignatures

@testable import TokenServer

/// The key-set fetch timeout in tests that must succeed: the end-to-end suites block the
/// cooperative pool's threads while a child process runs, and an in-process loopback server can
/// wait seconds for a thread on a 2-core machine. The tests that time out on purpose keep theirs.
let slowMachineTimeout: TimeInterval = 60

/// Two RSA keys for the whole run (generating one takes a while): tokens signed by one must not
/// verify against the other's key set.
enum Keys {
    static let a = generate(id: "key-a")
    static let b = generate(id: "key-b")

    static func generate(id: String) -> SigningKey {
        do {
            let key = try SigningKey.generate()
            return SigningKey(privateKey: key.privateKey, keyID: id, accountEmail: nil)
        } catch { fatalError("cannot generate a test key: \(error)") }
    }

    static func jwks(_ keys: SigningKey...) throws -> Data {
        try JSONEncoder().encode(JSONWebKeySet(keys: try keys.map { try RSAPublicJWK($0.publicKey, keyID: $0.keyID) }))
    }

    static let account = "minter@verifier-tests.iam.gserviceaccount.com"

    static func mint(_ key: SigningKey, id: String = "trip-1") async throws -> String {
        try await TokenMinter(key: key, issuer: account, lifetime: 600).mint(.consumer, id: id).jwt
    }
}

/// A loopback server that serves a key set, counts requests, and can change what it serves.
final class KeySetServer: Sendable {
    /// What is served and the request paths seen; the handler runs on the server's tasks.
    final class State: Sendable {
        let guarded: Mutex<(body: Data, paths: [String])>
        init(_ body: Data) { guarded = Mutex((body: body, paths: [])) }
    }
    let server: LoopbackServer
    private let state: State

    init(_ body: Data) async throws {
        let state = State(body)
        server = try await LoopbackServer.start { request in
            let body = state.guarded.withLock {
                $0.paths.append(request.path)
                return $0.body
            }
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: body)
        }
        self.state = state
    }

    var base: String { server.base }

    // Force-unwrap is safe: base is "http://127.0.0.1:PORT", built above.
    var url: URL { URL(string: base + "/jwks.json")! }
    var requests: [String] { state.guarded.withLock { $0.paths } }
    func serve(_ body: Data) { state.guarded.withLock { $0.body = body } }
    func stop() async { await server.stop() }
}

func decoded(_ token: String) throws -> DecodedJWT { try JWTInspector.decode(token) }

/// The same token with its claims changed and the old signature kept.
func tampered(_ token: String, replacing old: String, with new: String) throws -> String {
    let parts = token.split(separator: ".").map(String.init)
    let claims = try #require(JWTInspector.base64URLDecode(parts[1]))
    let changed = String(decoding: claims, as: UTF8.self).replacingOccurrences(of: old, with: new)
    #expect(changed != String(decoding: claims, as: UTF8.self))
    return [parts[0], TestJWT.encode(json: changed), parts[2]].joined(separator: ".")
}

@Suite(.timeLimit(.minutes(15))) struct JWKSVerifierTests {
    func keySetFile(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aKeySetFileVerifiesAGoodTokenAndRefusesATamperedOne() async throws {
        let path = try keySetFile(try Keys.jwks(Keys.a))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verifier = JWKSVerifier(keySet: .file(path), transport: sharedTransport)
        let token = try await Keys.mint(Keys.a)
        #expect(
            await verifier.verify(token, jwt: try decoded(token))
                == RuleResult(.signature, .ok, "RS256 verified with key key-a from \(path)"))
        // The claims now name another trip, under the signature made for trip-1.
        let forged = try tampered(token, replacing: "trip-1", with: "trip-2")
        let result = await verifier.verify(forged, jwt: try decoded(forged))
        #expect(result.level == .fail)
        #expect(
            result.reason
                == "signature does not verify against key key-a from \(path): the token was altered or signed by another key"
        )
    }

    @Test func aTokenSignedByAnotherKeyUnderTheSameKidFails() async throws {
        let path = try keySetFile(try Keys.jwks(Keys.a))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let impostor = SigningKey(privateKey: Keys.b.privateKey, keyID: "key-a", accountEmail: nil)
        let token = try await Keys.mint(impostor)
        let result = await JWKSVerifier(keySet: .file(path), transport: sharedTransport).verify(
            token, jwt: try decoded(token))
        #expect(result.level == .fail)
        #expect(result.reason.hasPrefix("signature does not verify against key key-a from \(path)"))
    }

    @Test func aKeySetURLIsFetchedOnceAndAnUnknownKidAtMostOnceAMinute() async throws {
        let server = try await KeySetServer(try Keys.jwks(Keys.a))
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let verifier = JWKSVerifier(
            keySet: .url(server.url), transport: sharedTransport, clock: clock, timeout: slowMachineTimeout)
        let first = try await Keys.mint(Keys.a)
        #expect(await verifier.verify(first, jwt: try decoded(first)).level == .ok)
        #expect(await verifier.verify(first, jwt: try decoded(first)).level == .ok)
        #expect(server.requests.count == 1, "cached by kid")

        // The backend rotates to key B; the set we hold does not have it yet.
        server.serve(try Keys.jwks(Keys.a, Keys.b))
        let rotated = try await Keys.mint(Keys.b)
        let early = await verifier.verify(rotated, jwt: try decoded(rotated))
        #expect(
            early
                == RuleResult(
                    .signature, .fail,
                    "kid key-b not in the JWKS at \(server.url.absoluteString) (key rotated or deleted?)"))
        #expect(server.requests.count == 1, "no refetch within a minute of the last")
        clock.advance(by: 61)
        #expect(await verifier.verify(rotated, jwt: try decoded(rotated)).level == .ok)
        #expect(server.requests.count == 2, "one refetch picked up the rotated key")

        // A kid that is nowhere: one refetch a minute at most, then the failure names it.
        let stranger = SigningKey(privateKey: Keys.b.privateKey, keyID: "deleted-key", accountEmail: nil)
        let gone = try await Keys.mint(stranger)
        #expect(
            await verifier.verify(gone, jwt: try decoded(gone)).reason
                == "kid deleted-key not in the JWKS at \(server.url.absoluteString) (key rotated or deleted?)")
        #expect(await verifier.verify(gone, jwt: try decoded(gone)).level == .fail)
        #expect(server.requests.count == 2)
    }

    @Test func withoutAKeySetAServiceAccountIssuerUsesGooglesPublishedKeys() async throws {
        let server = try await KeySetServer(try Keys.jwks(Keys.a))
        defer { Task { await server.stop() } }
        let base = server.base
        let verifier = JWKSVerifier(
            keySet: nil, transport: sharedTransport, timeout: slowMachineTimeout,
            googleURL: { URL(string: "\(base)/service_accounts/v1/metadata/jwk/\($0)") })
        let token = try await Keys.mint(Keys.a)
        #expect(await verifier.verify(token, jwt: try decoded(token)).level == .ok)
        #expect(server.requests == ["/service_accounts/v1/metadata/jwk/\(Keys.account)"])
        #expect(
            JWKSVerifier.googleKeySetURL(for: Keys.account)?.absoluteString
                == "https://www.googleapis.com/service_accounts/v1/metadata/jwk/\(Keys.account)")
    }

    @Test func anUnreachableKeySetIsNotCheckedRatherThanFailed() async throws {
        // Port 9 on loopback: nothing listens, the connection is refused at once.
        let verifier = JWKSVerifier(
            keySet: nil, transport: sharedTransport,
            googleURL: { URL(string: "http://127.0.0.1:9/jwk/\($0)") })
        let token = try await Keys.mint(Keys.a)
        let result = await verifier.verify(token, jwt: try decoded(token))
        #expect(result.level == .note)
        #expect(result.reason.hasPrefix("not checked: key set http://127.0.0.1:9/jwk/\(Keys.account) unavailable: "))
    }

    @Test func anIssuerThatIsNoServiceAccountIsNotChecked() async throws {
        let token = try await TokenMinter(key: Keys.a, issuer: "backend@example.com", lifetime: 600).mint(
            .consumer, id: "t"
        ).jwt
        let result = await JWKSVerifier(keySet: nil, transport: sharedTransport).verify(token, jwt: try decoded(token))
        #expect(
            result
                == RuleResult(
                    .signature, .note,
                    "not checked: no --jwks, and iss is not a Google service account whose keys could be fetched"))
    }

    @Test func aBadKeySetFileIsOneLineNamingIt() throws {
        let path = try keySetFile(Data("{\"keys\": 5}".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: FleetAuthError.self) { try JWKSVerifier.validate(file: path) }
        do { try JWKSVerifier.validate(file: path) } catch {
            #expect(error.description.hasPrefix("\(path) is not a JWKS"))
            #expect(!error.description.contains("\n"))
        }
        do { try JWKSVerifier.validate(file: "/nonexistent/jwks.json") } catch {
            #expect(error.description == "--jwks /nonexistent/jwks.json: no such file")
        }
        let empty = try keySetFile(Data("{\"keys\": []}".utf8))
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(throws: FleetAuthError.other("\(empty) is a JWKS with no keys")) {
            try JWKSVerifier.validate(file: empty)
        }
    }
}

/// The provider with a verifier: a failed signature is a failed fetch, and nothing is cached.
@Suite(.timeLimit(.minutes(15))) struct SignedProviderTests {
    func withServer(_ body: (EmbeddedTokenServer, URL) async throws -> Void) async throws {
        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(lifetime: 600), key: Keys.a)
        let base = try await server.start()
        do { try await body(server, base) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func theEmbeddedServersTokensVerifyAgainstItsOwnJWKS() async throws {
        try await withServer { _, base in
            let transport = sharedTransport
            let verifier = JWKSVerifier(
                keySet: .url(base.appendingPathComponent(".well-known/jwks.json")), transport: transport,
                timeout: slowMachineTimeout)
            let provider = ConsumerTokenProvider(
                endpoint: .sampleBackend(.consumer, base: base.absoluteString), transport: transport, verifier: verifier
            )
            let token = try await provider.fetchToken(for: TripAuthorizationContext(tripID: "trip-9"))
            let cached = try #require(await provider.cachedToken)
            #expect(cached.token == token)
            #expect(cached.jwt.claims["authorization"]?["tripid"] == .string("trip-9"))
            #expect(cached.signature?.level == .ok)
            #expect(cached.findings.allSatisfy { $0.level == .ok }, "\(cached.findings)")
        }
    }

    @Test func aTokenThatDoesNotVerifyIsAFetchErrorAndNotCached() async throws {
        try await withServer { _, base in
            // The key set of another key: every token the server mints fails.
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-b-\(UUID().uuidString).json")
                .path
            try Keys.jwks(SigningKey(privateKey: Keys.b.privateKey, keyID: "key-a", accountEmail: nil)).write(
                to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let provider = ConsumerTokenProvider(
                endpoint: .sampleBackend(.consumer, base: base.absoluteString), transport: sharedTransport,
                verifier: JWKSVerifier(keySet: .file(path), transport: sharedTransport))
            await #expect(
                throws: FleetAuthError.rejected([
                    RuleResult(
                        .signature, .fail,
                        "signature does not verify against key key-a from \(path): the token was altered or signed by another key"
                    )
                ])
            ) {
                try await provider.fetchToken(for: TripAuthorizationContext(tripID: "trip-9"))
            }
            #expect(await provider.cachedToken == nil)
        }
    }
}
