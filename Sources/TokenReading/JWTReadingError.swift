import Redaction

/// Why a text is not a JWT. Its own error, not `FleetAuthError`: the reader sits below the provider
/// vocabulary, which wraps it (`FleetAuthError.notAJWT`, the same sentence).
public enum JWTReadingError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAJWT(String)

    /// The sentence, redacted as every error's is (the reasons name parts, never a token's text).
    public var description: String { SecretRedactor.redact(sentence) }

    package var sentence: String {
        switch self {
        case .notAJWT(let why): "token is not a JWT: \(why)"
        }
    }
}
