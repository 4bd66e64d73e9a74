import Foundation

/// A token accepted from the backend, with what the provider learned while checking it.
public struct FetchedToken: Sendable, Equatable {
    public var token: String
    public var id: String
    public var expiresAt: Date
    public var receivedAt: Date
    public var jwt: DecodedJWT
    /// Things worth showing that did not make the token unusable, e.g. an expiry that disagrees with `exp`.
    public var warnings: [String]

    /// How long the token lives: the signed `exp - iat` when the JWT has both, else the time from
    /// receipt to expiry (short by the fetch latency and by `iat` being rounded down).
    public var lifetime: TimeInterval {
        if let iat = jwt.claims["iat"]?.intValue, let exp = jwt.claims["exp"]?.intValue { return TimeInterval(exp - iat) }
        return expiresAt.timeIntervalSince(receivedAt)
    }

    public init(token: String, id: String, expiresAt: Date, receivedAt: Date, jwt: DecodedJWT, warnings: [String] = []) {
        self.token = token
        self.id = id
        self.expiresAt = expiresAt
        self.receivedAt = receivedAt
        self.jwt = jwt
        self.warnings = warnings
    }
}

/// Turns a backend's HTTP answer into a `FetchedToken`, or the precise reason it can't.
public struct TokenResponseDecoder: Sendable {
    /// Backend expiry and JWT `exp` may differ by clock skew and rounding; beyond this they disagree.
    public static let agreementTolerance: TimeInterval = 5

    public var endpoint: TokenEndpoint
    public init(endpoint: TokenEndpoint) { self.endpoint = endpoint }

    public func decode(_ response: TransportResponse, id: String, now: Date) throws(FleetAuthError) -> FetchedToken {
        guard (200..<300).contains(response.status) else {
            throw .httpStatus(code: response.status, body: Self.snippet(response.body))
        }
        guard response.body.count <= endpoint.maxBodyBytes else { throw .bodyTooLarge(limit: endpoint.maxBodyBytes) }
        let json: JSONValue
        do { json = try JSONValue.decode(response.body) } catch {
            throw .notJSON(response.body.isEmpty ? "empty body" : "cannot parse \"\(Self.snippet(response.body, max: 40))\"")
        }
        guard case .object(let fields) = json else { throw .notJSON("top level is a \(json.typeName), not an object") }
        guard let tokenValue = fields[endpoint.tokenKey] else { throw .missingKey(endpoint.tokenKey) }
        guard let token = tokenValue.stringValue else {
            throw .wrongType(key: endpoint.tokenKey, expected: "string", found: tokenValue.typeName)
        }
        guard let expiryValue = fields[endpoint.expiryKey] else { throw .missingKey(endpoint.expiryKey) }
        guard let rawExpiry = expiryValue.numberValue else {
            throw .wrongType(key: endpoint.expiryKey, expected: "number", found: expiryValue.typeName)
        }
        let jwt = try JWTInspector.decode(token)
        if let error = JWTInspector.error(for: JWTInspector.check(jwt, kind: endpoint.kind, id: id)) { throw error }

        var warnings: [String] = []
        var expiresAt = Self.interpret(rawExpiry, mode: endpoint.expiryMode, now: now)
        if let exp = jwt.expiresAt, abs(exp.timeIntervalSince(expiresAt)) > Self.agreementTolerance {
            let said = Int(expiresAt.timeIntervalSince(now)), claim = Int(exp.timeIntervalSince(now))
            if endpoint.expiryMode == .auto {
                warnings.append("\"\(endpoint.expiryKey)\" says \(said) s left but the JWT exp says \(claim) s; using exp")
                expiresAt = exp
            } else {
                warnings.append("\"\(endpoint.expiryKey)\" read as \(endpoint.expiryMode.rawValue) says \(said) s left but the JWT exp says \(claim) s")
            }
        }
        let left = expiresAt.timeIntervalSince(now)
        if left <= 0 { throw .alreadyExpired(expiredSecondsAgo: Int(-left)) }
        if left > TimeInterval(JWTInspector.maximumLifetime) + Self.agreementTolerance {
            throw .expiryTooFar(secondsFromNow: Int(left))
        }
        return FetchedToken(token: token, id: id, expiresAt: expiresAt, receivedAt: now, jwt: jwt, warnings: warnings)
    }

    /// Reads a raw expiry number. `auto` goes by magnitude: above 1e11 is epoch milliseconds
    /// (year 5138 in seconds), above 1e9 epoch seconds (2001 on), anything less a duration.
    public static func interpret(_ raw: Double, mode: ExpiryMode, now: Date) -> Date {
        switch mode {
        case .absolute: return Date(timeIntervalSince1970: raw)
        case .absoluteMilliseconds: return Date(timeIntervalSince1970: raw / 1000)
        case .relative: return now.addingTimeInterval(raw)
        case .auto:
            if raw > 1e11 { return Date(timeIntervalSince1970: raw / 1000) }
            if raw > 1e9 { return Date(timeIntervalSince1970: raw) }
            return now.addingTimeInterval(raw)
        }
    }

    /// The first line of a body, short enough for a one-line message.
    static func snippet(_ body: Data, max: Int = 80) -> String {
        let text = String(decoding: body.prefix(max * 4), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > max ? String(line.prefix(max)) + "…" : line
    }
}
