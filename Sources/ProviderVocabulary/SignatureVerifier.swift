import Foundation
import TokenReading

/// Judges a token's signature: `ok`, `fail` (it does not verify, or its key is not in the key
/// set), or a neutral `note` when it cannot be checked (no key set, key set unreachable).
/// The result's rule is `signature`. The JWKS implementation (jwt-kit) lives in `TokenSignatures`,
/// so that the provider vocabulary builds without jwt-kit and stays fuzzable with bare swiftc.
public protocol SignatureVerifier: Sendable {
    func verify(_ token: String, jwt: DecodedJWT) async -> RuleResult
}

extension RuleResult {
    /// What a provider records when it has no verifier at all.
    public static let signatureNotConfigured = RuleResult(
        .signature, .note, "not checked: no key set (give --jwks FILE|URL)")
}
