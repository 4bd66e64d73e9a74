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
    /// When the provider will start fetching this token's successor (the expiry itself when the
    /// margin is 0). Set by the provider as it caches the token; nil until then.
    public var refreshAt: Date?

    /// How long the token lives: the signed `exp - iat` when the JWT has both, else the time from
    /// receipt to expiry (short by the fetch latency and by `iat` being rounded down).
    public var lifetime: TimeInterval {
        // In Double: a hostile token's exp - iat can overflow an Int64.
        if let iat = jwt.claims["iat"]?.intValue, let exp = jwt.claims["exp"]?.intValue { return TimeInterval(exp) - TimeInterval(iat) }
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
            let retryAfter = [429, 503].contains(response.status) ? Self.retryAfterSeconds(response.header("Retry-After"), now: now) : nil
            throw .httpStatus(code: response.status, body: Self.snippet(response), retryAfter: retryAfter)
        }
        guard response.body.count <= endpoint.maxBodyBytes else { throw .bodyTooLarge(limit: endpoint.maxBodyBytes) }
        let json: JSONValue
        do { json = try JSONValue.decode(response.body) } catch {
            if response.body.isEmpty { throw .notJSON("backend answered HTTP \(response.status) with an empty body") }
            if Self.isHTML(response) {
                let title = Self.htmlTitle(response.body).map { " titled \"\(Self.shorten($0, max: 60))\"" } ?? ""
                throw .notJSON("an HTML page\(title), often a proxy's or login page")
            }
            throw .notJSON("cannot parse \"\(Self.snippet(response, max: 40))\"")
        }
        guard case .object(let fields) = json else { throw .notJSON("top level is a \(json.typeName), not an object") }
        guard let tokenValue = fields[endpoint.tokenKey] else { throw .missingKey(endpoint.tokenKey) }
        guard let token = tokenValue.stringValue else {
            throw .wrongType(key: endpoint.tokenKey, expected: "string", found: Self.preview(tokenValue))
        }
        guard let expiryValue = fields[endpoint.expiryKey] else { throw .missingKey(endpoint.expiryKey) }
        guard let rawExpiry = expiryValue.numberValue else {
            throw .wrongType(key: endpoint.expiryKey, expected: "number", found: Self.preview(expiryValue))
        }
        let jwt = try JWTInspector.decode(token)
        if let error = JWTInspector.error(for: JWTInspector.check(jwt, kind: endpoint.kind, id: id)) { throw error }

        var warnings: [String] = []
        var expiresAt = try expiry(rawExpiry, now: now)
        // The JWT's exp passed check(): an integer, after iat, at most an hour after it.
        if let exp = jwt.expiresAt, abs(exp.timeIntervalSince(expiresAt)) > Self.agreementTolerance {
            let said = Self.wholeSeconds(expiresAt.timeIntervalSince(now)), claim = Self.wholeSeconds(exp.timeIntervalSince(now))
            if endpoint.expiryMode == .auto {
                warnings.append("\"\(endpoint.expiryKey)\" says \(said) s left but the JWT exp says \(claim) s; using exp")
                expiresAt = exp
            } else {
                warnings.append("\"\(endpoint.expiryKey)\" read as \(endpoint.expiryMode.rawValue) says \(said) s left but the JWT exp says \(claim) s")
            }
        }
        let left = expiresAt.timeIntervalSince(now)
        if left <= 0 { throw .alreadyExpired(expiredSecondsAgo: Self.wholeSeconds(-left)) }
        if left > TimeInterval(JWTInspector.maximumLifetime) + Self.agreementTolerance {
            throw .expiryTooFar(secondsFromNow: Self.wholeSeconds(left))
        }
        return FetchedToken(token: token, id: id, expiresAt: expiresAt, receivedAt: now, jwt: jwt, warnings: warnings)
    }

    /// Anything further than this from now is no expiry in any mode (about 317 years), so the
    /// numbers that follow stay in range of an `Int` and of a sensible message. `decode` shows
    /// claims past it as raw numbers.
    public static let implausibleSeconds: TimeInterval = 1e10

    /// The backend's expiry as a date, or why the number cannot be one.
    private func expiry(_ raw: Double, now: Date) throws(FleetAuthError) -> Date {
        let shown = Self.format(raw)
        guard raw.isFinite else { throw .invalidExpiry(key: endpoint.expiryKey, value: shown, reason: "not a finite number") }
        guard raw >= 0 else { throw .invalidExpiry(key: endpoint.expiryKey, value: shown, reason: "negative") }
        let date = Self.interpret(raw, mode: endpoint.expiryMode, now: now)
        guard abs(date.timeIntervalSince(now)) < Self.implausibleSeconds else {
            throw .invalidExpiry(key: endpoint.expiryKey, value: shown,
                                 reason: "read as \(endpoint.expiryMode.rawValue) it is centuries away")
        }
        return date
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

    /// The first line of a body, short enough for a one-line message; an HTML page is shown by its title.
    static func snippet(_ response: TransportResponse, max: Int = 80) -> String {
        if isHTML(response), let title = htmlTitle(response.body) { return "HTML page \"\(shorten(title, max: max))\"" }
        // Redacted before it is cut: a cut token is no longer recognisable as one.
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return shorten(TokenRedactor.redactJWTs(in: line), max: max)
    }

    /// The `Retry-After` header as whole seconds from now: delta-seconds or an HTTP date, capped at
    /// an hour (a token never lives longer, so a longer wait is a misconfigured server).
    public static func retryAfterSeconds(_ value: String?, now: Date) -> Int? { RetryAfter.seconds(value, now: now) }

    /// A number of seconds as an Int without trapping on values an `Int` cannot hold (a token's
    /// claims can say 1e300); for messages and display.
    public static func wholeSeconds(_ t: TimeInterval) -> Int {
        guard t.isFinite else { return t > 0 ? Int.max : (t < 0 ? Int.min : 0) }
        return Int(min(max(t, -9e18), 9e18))
    }

    private static func isHTML(_ response: TransportResponse) -> Bool {
        if response.header("Content-Type")?.lowercased().contains("text/html") == true { return true }
        let start = String(decoding: response.body.prefix(64), as: UTF8.self).drop { $0.isWhitespace }.lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html") || start.hasPrefix("<head") || start.hasPrefix("<body")
    }

    private static func htmlTitle(_ body: Data) -> String? {
        let text = String(decoding: body.prefix(8192), as: UTF8.self)
        guard let open = text.range(of: "<title>", options: .caseInsensitive),
              let close = text.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
        else { return nil }
        let title = text[open.upperBound..<close.lowerBound].split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return title.isEmpty ? nil : title
    }

    /// A JSON value as a message shows it: its type, and a short look at it.
    private static func preview(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): "string \"\(shorten(s, max: 24))\""
        case .int(let i): "number \(i)"
        case .double(let d): "number \(format(d))"
        case .bool(let b): "boolean \(b)"
        default: value.typeName
        }
    }

    private static func format(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    private static func shorten(_ s: String, max: Int) -> String {
        s.count > max ? String(s.prefix(max)) + "…" : s
    }
}
