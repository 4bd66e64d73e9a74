import Foundation
import JWTKit
import ProviderVocabulary
import TokenServer
import _CryptoExtras

/// The RSA key the mint section's server and its jwt-kit baseline share, in a mode-600 PEM file
/// (the server process loads it as `tokendash serve --key` would).
enum BenchKey {
    /// A fresh RSA-2048 key in a new temporary file; returns its path.
    static func write() throws -> String {
        let pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokendash-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).pem").path
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw MintBenchmark.BenchmarkError("cannot write \(path)")
        }
        return path
    }

    /// Signs the server's claims for a numbered ID through jwt-kit directly, with the key in
    /// `keyFile`, its `kid` and the minter's serializer settings.
    struct Signer: Sendable {
        let keys: JWTKeyCollection
        let kid: JWKIdentifier
        /// jwt-kit's RS256 algorithm for the key, and a token's signing input to sign with it alone.
        let algorithm: any JWTAlgorithm
        let signingInput: [UInt8]
        let issuer = TokenServerConfiguration.defaultIssuer
        let issuedAt = Int(Date().timeIntervalSince1970)

        func sign(_ n: Int) async throws -> String {
            let claims = FleetEngineClaims(
                issuer: issuer, kind: n % 2 == 0 ? .consumer : .driver, id: "bench-0-\(n)",
                issuedAt: issuedAt, expiresAt: issuedAt + 3600)
            return try await keys.sign(claims, kid: kid)
        }

        /// The RS256 signature alone (SHA-256 and RSA), with no JSON or token assembly.
        func signature() throws -> [UInt8] {
            try algorithm.sign(signingInput)
        }
    }

    static func jwtKitSigner(keyFile: String) async throws -> Signer {
        let keyID = try SigningKey.load(path: keyFile).keyID
        let key = try JWTKit.Insecure.RSA.PrivateKey(pem: String(contentsOfFile: keyFile, encoding: .utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keys = JWTKeyCollection()
        await keys.add(
            rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: keyID),
            serializer: DefaultJWTSerializer(jsonEncoder: encoder))
        let kid = JWKIdentifier(string: keyID)
        let token = try await keys.sign(
            FleetEngineClaims(
                issuer: TokenServerConfiguration.defaultIssuer, kind: .consumer, id: "bench-0-0",
                issuedAt: 1_800_000_000, expiresAt: 1_800_003_600), kid: kid)
        return Signer(
            keys: keys, kid: kid, algorithm: try await keys.getKey(for: kid),
            signingInput: Array(token.utf8.prefix(upTo: token.utf8.lastIndex(of: UInt8(ascii: "."))!)))
    }
}
