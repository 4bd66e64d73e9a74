import Foundation

/// A JWT split and decoded, signature untouched.
public struct DecodedJWT: Sendable, Equatable {
    public var header: JSONValue
    public var claims: JSONValue
    /// The signature as written (base64url): a slice of the token it came from, so a cached token
    /// does not keep its last 342 characters twice.
    public var signature: String {
        get { String(signaturePart) }
        set { signaturePart = Substring(newValue) }
    }
    private var signaturePart: Substring

    /// Public for replays, which rebuild a token's decoded parts from a recording (no signature).
    public init(header: JSONValue, claims: JSONValue, signature: String) {
        self.init(header: header, claims: claims, signaturePart: Substring(signature))
    }

    init(header: JSONValue, claims: JSONValue, signaturePart: Substring) {
        self.header = header
        self.claims = claims
        self.signaturePart = signaturePart
    }

    public var expiresAt: Date? { claims["exp"]?.numberValue.map { Date(timeIntervalSince1970: $0) } }
    public var issuedAt: Date? { claims["iat"]?.numberValue.map { Date(timeIntervalSince1970: $0) } }
}

/// Splits and decodes tokens; `TokenRules` judges them.
public enum JWTInspector {
    public static let fleetEngineAudience = "https://fleetengine.googleapis.com/"
    /// Fleet Engine refuses a token whose `exp - iat` is longer than an hour (`TokenRules`).
    public static let maximumLifetime = 3600

    public static func decode(_ token: String) throws(FleetAuthError) -> DecodedJWT {
        let parts = dotSeparated(token)
        guard parts.count == 3 else { throw .notAJWT("expected 3 dot-separated parts, found \(parts.count)") }
        let header = try decodePart(parts[0], name: "header")
        let claims = try decodePart(parts[1], name: "payload")
        // An unsigned token (alg none) has an empty signature by design; it decodes so that
        // the alg rule can name the real problem instead of "empty signature".
        let unsigned = header["alg"]?.stringValue?.lowercased() == "none"
        guard !parts[2].isEmpty || unsigned else { throw .notAJWT("empty signature") }
        // Checked, not decoded: a `SignatureVerifier` judges it, but one with stray characters
        // would not survive any verifier. Padding is tolerated as in the other parts.
        let signature = parts[2].unicodeScalars.reversed().drop { $0 == "=" }
        guard signature.allSatisfy(isBase64URL) else { throw .notAJWT("signature is not base64url") }
        return DecodedJWT(header: header, claims: claims, signaturePart: parts[2])
    }

    /// `token` split at its dots. An ASCII token (every real one) is split by its UTF-8, since a
    /// split by Characters walks grapheme boundaries and cost more than decoding the parts; ASCII
    /// has no combining mark to join a dot to its neighbour, so the parts are the same.
    static func dotSeparated(_ token: String) -> [Substring] {
        let bytes = token.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return token.split(separator: ".", omittingEmptySubsequences: false)
        }
        var parts: [Substring] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: ".") {
                parts.append(token[start..<index])
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        parts.append(token[start...])
        return parts
    }

    /// Base64url without padding, as JWT parts and JWK members are written.
    public static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Strict: only the base64url alphabet, optionally padded; `+`, `/` and whitespace are refused
    /// because a JWT library on the other end would refuse them too.
    public static func base64URLDecode<S: StringProtocol>(_ s: S) -> Data? {
        // Byte by byte over the UTF-8 (the alphabet is ASCII, so any other byte fails): on Linux,
        // String's replacingOccurrences goes through NSString, and this runs for every token
        // received (the tap: thousands a second) and every Fleet Engine call made.
        var b64 = [UInt8]()
        b64.reserveCapacity(s.utf8.count + 3)
        var padding = 0
        for byte in s.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            // Nothing but padding after the first `=`.
            guard padding == 0 else { return nil }
            switch byte {
            case UInt8(ascii: "-"): b64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): b64.append(UInt8(ascii: "/"))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                b64.append(byte)
            default: return nil
            }
        }
        guard padding <= 2, b64.count % 4 != 1 else { return nil }
        while b64.count % 4 != 0 { b64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(b64))
    }

    static func isBase64URL(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_": true
        default: false
        }
    }

    private static func decodePart(_ part: Substring, name: String) throws(FleetAuthError) -> JSONValue {
        guard let data = base64URLDecode(part) else { throw .notAJWT("\(name) is not base64url") }
        guard let value = try? JSONValue.decode(data) else { throw .notAJWT("\(name) is not JSON") }
        guard case .object = value else { throw .notAJWT("\(name) is not a JSON object") }
        return value
    }
}
