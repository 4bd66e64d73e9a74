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
    public static let fleetEngineAudience = TokenRules.fleetEngineAudience
    public static let maximumLifetime = Int(TokenRules.maximumLifetime)

    public static func decode(_ token: String) throws(FleetAuthError) -> DecodedJWT {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
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

    /// Base64url without padding, as JWT parts and JWK members are written.
    public static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Strict: only the base64url alphabet, optionally padded; `+`, `/` and whitespace are refused
    /// because a JWT library on the other end would refuse them too.
    public static func base64URLDecode<S: StringProtocol>(_ s: S) -> Data? {
        let text = String(s)
        let unpadded = text.unicodeScalars.prefix { $0 != "=" }
        let padding = text.unicodeScalars.count - unpadded.count
        guard padding <= 2, unpadded.allSatisfy(isBase64URL), unpadded.count % 4 != 1,
            text.unicodeScalars.suffix(padding).allSatisfy({ $0 == "=" })
        else { return nil }
        // Byte by byte: on Linux, String's replacingOccurrences goes through NSString, and this
        // runs for every token received and every Fleet Engine call made.
        var b64 = [UInt8]()
        b64.reserveCapacity(unpadded.count + 3)
        for scalar in unpadded {
            switch scalar {
            case "-": b64.append(UInt8(ascii: "+"))
            case "_": b64.append(UInt8(ascii: "/"))
            default: b64.append(UInt8(scalar.value))
            }
        }
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
