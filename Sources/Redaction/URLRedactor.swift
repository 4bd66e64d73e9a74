/// Backend URLs can carry credentials (`https://user:pass@host`, `?key=...`, signed-URL signatures);
/// everything that prints a URL goes through here, as tokens go through `TokenRedactor`.
/// Works on text, not `URL`: templates with `{tripId}` and URLs quoted inside messages are not valid URLs.
public enum URLRedactor {
    public static let hidden = "‹hidden›"

    /// Query keys whose values are credentials. A key is secret when, lower-cased, it contains one of
    /// these: `client_secret`, `X-Goog-Signature` and `apiKey` are caught without listing every spelling;
    /// hiding a harmless value by mistake costs nothing, printing a key costs a rotation.
    /// `assertion` is OAuth's JWT bearer grant (RFC 7523), `session` a session cookie's value.
    static let secretKeyParts = [
        "key", "token", "secret", "password", "passwd", "signature", "sig", "credential", "auth",
        "assertion", "session",
    ]

    /// `url` with its user info and secret query values hidden.
    public static func redact(_ url: String) -> String {
        redactURLs(in: url)
    }

    /// `text` with every `scheme://...` run in it redacted: messages quote URLs (redirect chains,
    /// bodies naming a callback) and none of them may leak a credential.
    public static func redactURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        var out = ""
        var rest = Substring(text)
        while let marker = rest.range(of: "://") {
            // The URL ends at the first character that cannot be in one (space, quote, angle bracket).
            var end = rest[marker.upperBound...].firstIndex(where: isURLTerminator) ?? rest.endIndex
            // Punctuation that ends a sentence or a parenthesis is the text's, not the URL's (as linkifiers
            // decide): "...?key=K): refused" must keep its "): ".
            while end > marker.upperBound, ".,:;)]}!?".contains(rest[rest.index(before: end)]) {
                end = rest.index(before: end)
            }
            out += rest[..<marker.upperBound]
            out += redactAfterScheme(rest[marker.upperBound..<end])
            rest = rest[end...]
        }
        return out + rest
    }

    static func isSecretKey(_ key: Substring) -> Bool {
        let name = (String(key).removingPercentEncoding ?? String(key)).lowercased()
        return secretKeyParts.contains { name.contains($0) }
    }

    private static func isURLTerminator(_ c: Character) -> Bool {
        c.isWhitespace || "\"'<>`".contains(c)
    }

    /// `authority/path?query#fragment` with the user info and secret query values hidden.
    private static func redactAfterScheme(_ s: Substring) -> String {
        let authorityEnd = s.firstIndex(where: { "/?#".contains($0) }) ?? s.endIndex
        var authority = String(s[..<authorityEnd])
        // The last @ ends the user info: a password may itself hold an unencoded @.
        if let at = authority.lastIndex(of: "@") {
            authority = hidden + authority[at...]
        }
        var tail = s[authorityEnd...]
        var fragment: Substring = ""
        if let hash = tail.firstIndex(of: "#") {
            fragment = tail[hash...]
            tail = tail[..<hash]
        }
        guard let question = tail.firstIndex(of: "?") else { return authority + tail + fragment }
        let query = tail[tail.index(after: question)...]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "="), isSecretKey(pair[..<equals]),
                pair.index(after: equals) < pair.endIndex
            else { return String(pair) }
            return pair[...equals] + hidden
        }
        return authority + tail[...question] + redacted.joined(separator: "&") + fragment
    }
}
