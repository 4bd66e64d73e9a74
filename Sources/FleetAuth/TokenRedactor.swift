/// Tokens are credentials: everything that shows or logs one goes through here unless the user asked to reveal it.
public enum TokenRedactor {
    /// The first 12 characters of the header and the last 6 of the signature, enough to tell tokens apart.
    /// A token too short to cut that way is hidden whole.
    public static func redact(_ token: String) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count > 12, parts[2].count > 6 else { return "‹hidden, \(token.count) chars›" }
        return "\(parts[0].prefix(12))…\(parts[2].suffix(6))"
    }
}
