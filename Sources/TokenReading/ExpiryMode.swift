/// How to read the expiration the backend sends next to the token.
public enum ExpiryMode: String, Sendable, CaseIterable {
    /// Epoch seconds, as Google's Swift sample reads it.
    case absolute
    /// Epoch milliseconds, as Google's sample backend sends `expirationTimestamp`.
    case absoluteMilliseconds = "absolute-ms"
    /// Seconds from now, as Google's Objective-C sample reads it.
    case relative
    /// Decided from the magnitude; a response without the key falls back to the JWT's `exp`.
    case auto
    /// Only the JWT's signed `exp`; the response's expiry key is not read.
    case jwt
}
