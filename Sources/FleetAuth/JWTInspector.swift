import Foundation

/// One way a token departs from what Fleet Engine accepts.
public enum ShapeProblem: Sendable, Equatable, CustomStringConvertible {
    case algorithm(String)
    case audience(String)
    case missingClaim(String)
    case notInteger(String)
    case lifetime(Int)
    case expiresBeforeIssued(iat: Int64, exp: Int64)
    case missingAuthorization(String)
    case wrongID(claim: String, expected: String, found: String)

    public var description: String {
        switch self {
        case .algorithm(let a) where a.lowercased() == "none": "alg is none (an unsigned token), expected RS256"
        case .algorithm(let a): "alg is \(a), expected RS256"
        case .audience(let a): "aud is \(a), expected \(JWTInspector.fleetEngineAudience)"
        case .missingClaim(let c): "no \(c) claim"
        case .notInteger(let c): "\(c) is not an integer"
        case .lifetime(let s): "lifetime exp - iat is \(s) s, over 3600 s"
        case .expiresBeforeIssued(let iat, let exp): "exp \(exp) is before iat \(iat)"
        case .missingAuthorization(let c): "no authorization.\(c) claim"
        case .wrongID(let claim, let expected, let found): "authorization.\(claim) is \"\(found)\", not \"\(expected)\""
        }
    }
}

/// A JWT split and decoded, signature untouched.
public struct DecodedJWT: Sendable, Equatable {
    public var header: JSONValue
    public var claims: JSONValue
    public var signature: String

    public var expiresAt: Date? { claims["exp"]?.numberValue.map { Date(timeIntervalSince1970: $0) } }
    public var issuedAt: Date? { claims["iat"]?.numberValue.map { Date(timeIntervalSince1970: $0) } }
}

/// Decodes tokens and checks them against the shape Fleet Engine requires.
public enum JWTInspector {
    public static let fleetEngineAudience = "https://fleetengine.googleapis.com/"
    public static let maximumLifetime = 3600

    public static func decode(_ token: String) throws(FleetAuthError) -> DecodedJWT {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .notAJWT("expected 3 dot-separated parts, found \(parts.count)") }
        let header = try decodePart(parts[0], name: "header")
        let claims = try decodePart(parts[1], name: "payload")
        // An unsigned token (alg none) has an empty signature by design; it decodes so that
        // check() can name the real problem instead of "empty signature".
        let unsigned = header["alg"]?.stringValue?.lowercased() == "none"
        guard !parts[2].isEmpty || unsigned else { throw .notAJWT("empty signature") }
        // Checked, not decoded: the provider does not verify signatures, but one with stray
        // characters would not survive a verifier either. Padding is tolerated as in the other parts.
        let signature = parts[2].unicodeScalars.reversed().drop { $0 == "=" }
        guard signature.allSatisfy(isBase64URL) else { throw .notAJWT("signature is not base64url") }
        return DecodedJWT(header: header, claims: claims, signature: String(parts[2]))
    }

    /// Problems that make Fleet Engine reject the token for `kind` and `id`; empty means it fits.
    public static func check(_ jwt: DecodedJWT, kind: ProviderKind, id: String) -> [ShapeProblem] {
        var problems: [ShapeProblem] = []
        let alg = jwt.header["alg"]?.stringValue ?? "missing"
        if alg != "RS256" { problems.append(.algorithm(alg)) }
        switch jwt.claims["aud"] {
        case .string(let aud) where aud == fleetEngineAudience: break
        case .array(let auds) where auds.contains(.string(fleetEngineAudience)): break
        case nil: problems.append(.missingClaim("aud"))
        case let other?: problems.append(.audience(other.stringValue ?? other.description))
        }
        var times: [String: Int64] = [:]
        for name in ["iat", "exp"] {
            switch jwt.claims[name] {
            case nil: problems.append(.missingClaim(name))
            case .int(let v)?: times[name] = v
            case _?: problems.append(.notInteger(name))
            }
        }
        if let iat = times["iat"], let exp = times["exp"] {
            // A hostile token can pick iat and exp so that exp - iat overflows.
            let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
            if exp < iat {
                problems.append(.expiresBeforeIssued(iat: iat, exp: exp))
            } else if overflow || lifetime > Int64(maximumLifetime) {
                problems.append(.lifetime(overflow ? Int.max : Int(lifetime)))
            }
        }
        let claim = kind.claimName
        if let found = jwt.claims["authorization"]?[claim]?.stringValue {
            if found != id && found != "*" { problems.append(.wrongID(claim: claim, expected: id, found: found)) }
        } else {
            problems.append(.missingAuthorization(claim))
        }
        return problems
    }

    /// Turns a problem list into the error a caller sees; a wrong ID gets its own case
    /// because it is the one users most need to tell apart.
    public static func error(for problems: [ShapeProblem]) -> FleetAuthError? {
        if problems.isEmpty { return nil }
        for case let .wrongID(claim, expected, found) in problems where problems.count == 1 {
            return .wrongID(claim: claim, expected: expected, found: found)
        }
        return .badShape(problems)
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
              text.unicodeScalars.suffix(padding).allSatisfy({ $0 == "=" }) else { return nil }
        var b64 = String(String.UnicodeScalarView(unpadded)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64.append("=") }
        return Data(base64Encoded: b64)
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
