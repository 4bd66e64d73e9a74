import Foundation
import ProviderVocabulary
import TapForwarding
import TapReading
import TestSupport
import Testing
import TokenReading
import TokenSignatures

/// `tap --jwks FILE|URL`: the tap reads each answer's token as a provider would, its signature
/// judged against the key set as `tokendash tap` builds the verifier: a token signed by a key of
/// the set is `ok` with the key named, one signed by another key is `fail`, counted by fingerprint.
@Suite(.timeLimit(.minutes(15))) struct TapSignatureTests {
    static func exchange(_ jwt: String, id: String = "trip-1") -> TapExchange {
        let body = Data(TestJWT.responseBody(jwt, expiresAtSeconds: Int(Date().timeIntervalSince1970) + 600).utf8)
        return TapExchange(
            method: "GET", target: "/token/consumer/\(id)", status: 200, body: body, latency: 0.002, time: Date())
    }

    static func reader(_ argument: String) -> ExchangeReader {
        ExchangeReader(
            verifier: JWKSVerifier(
                keySet: KeySetLocation(argument: argument), transport: sharedTransport, timeout: slowMachineTimeout))
    }

    @Test func aKeySetFileJudgesEachTokensSignature() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tap-jwks-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Keys.jwks(Keys.a).write(to: URL(fileURLWithPath: path))
        let reader = Self.reader(path)

        let good = try await Keys.mint(Keys.a)
        let read = await reader.read(Self.exchange(good), now: Date())
        #expect(read.verdict == .ok)
        #expect(read.token?.findings.contains { $0.level == .ok && $0.reason.contains("key-a") } == true)

        let foreign = try await Keys.mint(Keys.b)
        let refused = await reader.read(Self.exchange(foreign), now: Date())
        #expect(refused.verdict == .fail)
        #expect(refused.error?.contains("signature") == true)
        #expect(refused.fingerprint == TokenFingerprint.of(foreign))
        // Without --jwks the same token passes: the signature is what failed it.
        #expect(await ExchangeReader().read(Self.exchange(foreign), now: Date()).verdict == .ok)
    }

    @Test func aKeySetURLIsFetchedAndJudgesAsTheFileDoes() async throws {
        let server = try await KeySetServer(try Keys.jwks(Keys.a))
        let reader = Self.reader(server.url.absoluteString)
        #expect(await reader.read(Self.exchange(try await Keys.mint(Keys.a)), now: Date()).verdict == .ok)
        #expect(await reader.read(Self.exchange(try await Keys.mint(Keys.b)), now: Date()).verdict == .fail)
        await server.stop()
    }
}
