/// Tokens are credentials: everything that shows or logs one goes through here unless the user asked to reveal it.
public enum TokenRedactor {
    /// The first 12 characters of the header and the last 6 of the signature, enough to tell tokens apart.
    /// A token too short to cut that way is hidden whole.
    public static func redact(_ token: String) -> String {
        // Drawn every frame: an ASCII token (every real one) is cut by its bytes, without splitting.
        let bytes = token.utf8
        if bytes.allSatisfy({ $0 < 0x80 }) {
            let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
            guard dots.count == 2, bytes.distance(from: bytes.startIndex, to: dots[0]) > 12,
                bytes.distance(from: dots[1], to: bytes.endIndex) > 7
            else { return "‹hidden, \(bytes.count) chars›" }
            return "\(token.prefix(12))…\(token.suffix(6))"
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count > 12, parts[2].count > 6 else { return "‹hidden, \(token.count) chars›" }
        return "\(parts[0].prefix(12))…\(parts[2].suffix(6))"
    }

    /// `text` with every JWT-looking run redacted, whole or cut short (a quoted body may end mid-token).
    /// A JWT header is base64url JSON, so it starts `ey` (`{"` or `{ `) or `ew` (`{` and a newline);
    /// the run must hold a dot after a header of at least 8 characters, which no ordinary word or host name has.
    public static func redactJWTs(in text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= minimumRun else { return text }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            if let end = jwtRun(in: scalars, from: i) {
                out.append(contentsOf: redact(String(String.UnicodeScalarView(scalars[i..<end]))).unicodeScalars)
                i = end
            } else {
                out.append(scalars[i])
                i += 1
            }
        }
        return String(out)
    }

    private static let minimumRun = 16
    private static let minimumHeader = 8

    /// The end of a JWT-looking run starting at `start`, or nil.
    private static func jwtRun(in s: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 1 < s.count, s[start] == "e", s[start + 1] == "y" || s[start + 1] == "w" else { return nil }
        if start > 0, isBase64URL(s[start - 1]) { return nil }
        var end = start
        var firstDot: Int?
        // The run goes on over padding and plain-base64 characters too: a padded or mangled token
        // (which decode() may still refuse) must not leave its signature in clear after the cut.
        while end < s.count, isBase64URL(s[end]) || "./+=".unicodeScalars.contains(s[end]) {
            if s[end] == ".", firstDot == nil { firstDot = end }
            end += 1
        }
        guard let dot = firstDot, dot - start >= minimumHeader, end - start >= minimumRun else { return nil }
        return end
    }

    /// Whether `c` is of the base64url alphabet (RFC 4648 §5), as a JWT's three parts are.
    public static func isBase64URL(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_": true
        default: false
        }
    }
}
