import Foundation
import JSONValues
import Redaction

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

    public static func decode(_ token: String) throws(JWTReadingError) -> DecodedJWT {
        try decode(token, header: decodeHeader)
    }

    /// `header` decodes the header part: `decodeHeader`, or a reader's memo of the header its
    /// backend's tokens share (`TokenRules.Memo`).
    public static func decode(_ token: String, header decodeHeader: (Substring) throws(JWTReadingError) -> JSONValue)
        throws(JWTReadingError) -> DecodedJWT
    {
        let parts = dotSeparated(token)
        guard parts.count == 3 else { throw .notAJWT("expected 3 dot-separated parts, found \(parts.count)") }
        let header = try decodeHeader(parts[0])
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

    /// `token` split at its dots. An ASCII token (every real one) is split by its UTF-8 in the same
    /// pass that finds it ASCII, since a split by Characters walks grapheme boundaries and cost
    /// more than decoding the parts; ASCII has no combining mark to join a dot to its neighbour,
    /// so the parts are the same.
    static func dotSeparated(_ token: String) -> [Substring] {
        // Read in the contiguous UTF-8 a native string has; a bridged or non-ASCII one goes by Characters.
        let parts = token.utf8.withContiguousStorageIfAvailable { bytes -> [Substring]? in
            let utf8 = token.utf8
            var parts: [Substring] = []
            parts.reserveCapacity(3)
            var start = utf8.startIndex
            var offset = 0
            while offset < bytes.count {
                // Eight bytes at a time up to the next that may hold a dot or a byte past ASCII.
                offset = ByteScan.skipPlain(bytes, from: offset) { word in
                    ByteScan.has(word, UInt8(ascii: ".")) || word & ByteScan.highs != 0
                }
                for _ in 0..<min(8, bytes.count - offset) {
                    let byte = bytes[offset]
                    if byte >= 0x80 { return nil }
                    if byte == UInt8(ascii: ".") {
                        let dot = utf8.index(utf8.startIndex, offsetBy: offset)
                        parts.append(token[start..<dot])
                        start = utf8.index(after: dot)
                    }
                    offset += 1
                }
            }
            parts.append(token[start...])
            return parts
        }
        return (parts ?? nil) ?? token.split(separator: ".", omittingEmptySubsequences: false)
    }

    /// Base64url without padding, as JWT parts and JWK members are written.
    public static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Strict: only the base64url alphabet, optionally padded; `+`, `/` and whitespace are refused
    /// because a JWT library on the other end would refuse them too. The bits left over after the
    /// last whole byte are ignored, as Foundation's base64 decoding ignores them.
    public static func base64URLDecode<S: StringProtocol>(_ s: S) -> Data? {
        // Over the UTF-8 in place through a table, four digits to three bytes (the alphabet is
        // ASCII, so any other byte fails): this runs for every token received (the tap: thousands
        // a second) and every Fleet Engine call made, where a translated copy handed to
        // Foundation's base64 cost three buffers a part, and a byte-at-a-time walk of the view
        // was a tenth of the tap's reading. Kept beside Foundation for that: the tap-reader bench
        // (docs/benchmarks.md, 2026-11-30) reads an exchange in 6.65-7.48 µs with it and the hand
        // JSON reader, where Foundation alone (JSONSerialization, Data's base64) takes 22.6-23.8.
        // swift-extras-base64 is not a dependency: no figure against it is recorded. Base64URLTests
        // holds this decoder to Foundation's base64 over 20,000 generated strings.
        if let decoded = s.utf8.withContiguousStorageIfAvailable({ base64URLDecode(bytes: $0) }) { return decoded }
        return Array(s.utf8).withUnsafeBufferPointer { base64URLDecode(bytes: $0) }
    }

    private static func base64URLDecode(bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        // Padding only at the end, at most two; an `=` anywhere else is outside the alphabet.
        var digits = bytes.count
        while digits > 0, bytes[digits - 1] == UInt8(ascii: "=") { digits -= 1 }
        guard bytes.count - digits <= 2, digits % 4 != 1 else { return nil }
        // The bits left over after the last whole byte are ignored, as Foundation ignores them.
        let count = digits / 4 * 3 + max(0, digits % 4 - 1)
        var data = Data(count: count)
        let decoded = data.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
            base64URLValues.withUnsafeBufferPointer { values -> Bool in
                var input = 0
                var written = 0
                var bad: UInt8 = 0
                while digits - input >= 4 {
                    let a = values[Int(bytes[input])]
                    let b = values[Int(bytes[input + 1])]
                    let c = values[Int(bytes[input + 2])]
                    let d = values[Int(bytes[input + 3])]
                    // 0xFF marks a byte outside the alphabet: any of them sets the high bit.
                    bad |= a | b | c | d
                    let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[written] = UInt8(truncatingIfNeeded: word >> 16)
                    out[written + 1] = UInt8(truncatingIfNeeded: word >> 8)
                    out[written + 2] = UInt8(truncatingIfNeeded: word)
                    input += 4
                    written += 3
                }
                var word: UInt32 = 0
                var bits = 0
                while input < digits {
                    let value = values[Int(bytes[input])]
                    bad |= value
                    word = word << 6 | UInt32(value & 0x3F)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        out[written] = UInt8(truncatingIfNeeded: word >> UInt32(bits))
                        written += 1
                    }
                    input += 1
                }
                return bad & 0x80 == 0
            }
        }
        return decoded ? data : nil
    }

    /// Each byte's value in the base64url alphabet, 0xFF for a byte outside it.
    private static let base64URLValues: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        return values
    }()

    static func isBase64URL(_ c: Unicode.Scalar) -> Bool { TokenRedactor.isBase64URL(c) }

    /// A JWT's header part, decoded: base64url of a JSON object.
    public static func decodeHeader(_ part: Substring) throws(JWTReadingError) -> JSONValue {
        try decodePart(part, name: "header")
    }

    private static func decodePart(_ part: Substring, name: String) throws(JWTReadingError) -> JSONValue {
        guard let data = base64URLDecode(part) else { throw .notAJWT("\(name) is not base64url") }
        guard let value = try? JSONValue.decode(data) else { throw .notAJWT("\(name) is not JSON") }
        guard case .object = value else { throw .notAJWT("\(name) is not a JSON object") }
        return value
    }
}
