import Foundation
import JSONValues
import ProviderVocabulary
import Redaction
import TokenReading

/// Turns a backend's HTTP answer into a `FetchedToken`, or the precise reason it can't.
public struct TokenResponseDecoder: Sendable {
    /// Backend expiry and JWT `exp` may differ by clock skew and rounding; beyond this they disagree.
    public static let agreementTolerance: TimeInterval = 5

    public var endpoint: TokenEndpoint
    /// The tap's: one backend's tokens share their header and issuer, judged once (`TokenRules.Memo`).
    public var memo: TokenRules.Memo?
    public init(endpoint: TokenEndpoint, memo: TokenRules.Memo? = nil) {
        self.endpoint = endpoint
        self.memo = memo
    }

    /// How far this machine's clock is ahead of the backend's (negative: behind), as little as the
    /// answer allows: the backend wrote `date` at some moment between `sent` and `received`, so any
    /// offset between `sent - date` and `received - date` fits it, and 0 when that span holds 0.
    /// (A backend 3 s slow to answer is then not said to be 3 s behind.)
    public static func skew(date: Date, sent: Date, received: Date) -> TimeInterval {
        let least = min(sent, received).timeIntervalSince(date)
        let most = received.timeIntervalSince(date)
        if least > 0 { return least }
        if most < 0 { return most }
        return 0
    }

    /// `sentAt`: when the request went out, if known. The backend wrote its Date header at some
    /// moment between then and `now`, so a slow answer is not read as a skewed clock.
    public func decode(_ response: TransportResponse, id: String, now: Date, sentAt: Date? = nil) throws(FleetAuthError)
        -> FetchedToken
    {
        guard (200..<300).contains(response.status) else {
            let retryAfter =
                [429, 503].contains(response.status)
                ? Self.retryAfterSeconds(response.header("Retry-After"), now: now) : nil
            throw .httpStatus(code: response.status, body: Self.snippet(response), retryAfter: retryAfter)
        }
        guard response.body.count <= endpoint.maxBodyBytes else { throw .bodyTooLarge(limit: endpoint.maxBodyBytes) }
        var findings: [RuleResult] = []
        let (rawToken, shape, expiryValue) = try locate(response)
        var token = rawToken
        // Some backends hand over the value of an Authorization header; the SDKs want the bare JWT.
        if Self.hasBearerPrefix(token) {
            token = String(token.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            findings.append(RuleResult(.tokenField, .note, "stripped a \"Bearer \" prefix"))
        }
        // Chosen by an `if`: `memo?.decodedHeader ?? JWTInspector.decodeHeader` (two typed-throws
        // functions) crashes Swift 6.3.1's SIL generation.
        let jwt: DecodedJWT
        do throws(JWTReadingError) {
            if let memo {
                jwt = try JWTInspector.decode(token, header: memo.decodedHeader)
            } else {
                jwt = try JWTInspector.decode(token)
            }
        } catch {
            throw FleetAuthError(error)
        }
        // The rules' results first, the decoder's notes (rare) after them, in the rules' array.
        let notes = findings
        findings = TokenRules.evaluate(
            jwt, kind: endpoint.kind, id: id, now: now, providerID: endpoint.providerID,
            lifetimeChosen: endpoint.lifetimeChosen, memo: memo)
        findings.append(contentsOf: notes)
        var clockSkew: TimeInterval?
        if let date = response.header("Date").flatMap({ HTTPDate.parse($0) }) {
            let skew = Self.skew(date: date, sent: sentAt ?? now, received: now)
            clockSkew = skew
            findings.append(TokenRules.clock(serverDate: date, skew: skew, iat: jwt.claims["iat"]?.intValue))
        }
        if let error = Self.error(for: findings, jwt: jwt, kind: endpoint.kind, id: id, now: now) { throw error }
        // The rules passed, so exp is an integer in the future and at most an hour after iat.
        guard let exp = jwt.expiresAt else { throw .rejected([RuleResult(.expiry, .fail, "no exp claim")]) }
        let (expiresAt, expiryFinding) = bodyExpiry(expiryValue, shape: shape, signed: exp, now: now)
        if let expiryFinding { findings.append(expiryFinding) }
        var fetched = FetchedToken(
            token: token, id: id, expiresAt: expiresAt, receivedAt: now, jwt: jwt,
            findings: FetchedToken.kept(findings), clockSkew: clockSkew)
        fetched.shape = shape.name
        return fetched
    }

    /// The token text an answer carries, whatever the rules say of it.
    public func tokenText(_ response: TransportResponse) -> String? { try? locate(response).0 }

    /// The token, the shape it came in, and the expiry value if the shape has one.
    private func locate(_ response: TransportResponse) throws(FleetAuthError) -> (String, ResponseShape, JSONValue?) {
        let json: JSONValue
        do { json = try JSONValue.decode(response.body) } catch {
            if response.body.isEmpty { throw .notJSON("backend answered HTTP \(response.status) with an empty body") }
            if Self.isHTML(response) {
                let title = Self.htmlTitle(response.body).map { " titled \"\(Self.shorten($0, max: 60))\"" } ?? ""
                throw .notJSON("an HTML page\(title), often a proxy's or login page")
            }
            // A body that is just the token, as some backends send it (text/plain).
            let text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if endpoint.tokenKey == nil, Self.looksLikeJWT(text) { return (text, .bareJWT, nil) }
            throw .notJSON("cannot parse \"\(Self.snippet(response, max: 40))\"")
        }
        if case .string(let text) = json, endpoint.tokenKey == nil, Self.looksLikeJWT(text) {
            return (text, .bareJWT, nil)
        }
        guard case .object(let fields) = json else { throw .notJSON("top level is a \(json.typeName), not an object") }
        let wantedExpiry = endpoint.expiryMode == .jwt ? nil : endpoint.expiryKey
        guard let shape = ResponseShape.detect(fields, tokenKey: endpoint.tokenKey, expiryKey: wantedExpiry),
            let tokenKey = shape.tokenKey, let tokenValue = ResponseShape.lookup(tokenKey, in: fields)
        else {
            let key = endpoint.tokenKey ?? ResponseShape.tokenKeys.joined(separator: "\" or \"")
            throw .missingKey(key, present: fields.keys.sorted(), flag: "--token-key")
        }
        guard let token = tokenValue.stringValue else {
            throw .wrongType(key: tokenKey, expected: "string", found: Self.preview(tokenValue))
        }
        guard endpoint.expiryMode != .jwt else { return (token, shape, nil) }
        guard let expiryKey = shape.expiryKey else {
            // An explicit mode says the backend sends an expiry: not finding one is a setup error.
            guard endpoint.expiryMode == .auto else {
                let known = ResponseShape.known.compactMap(\.expiryKey)
                throw .missingKey(
                    known.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(
                        separator: "\" or \""),
                    present: fields.keys.sorted(), flag: "--expiry-key (or --expiry jwt)")
            }
            return (token, shape, nil)
        }
        let expiryValue = ResponseShape.lookup(expiryKey, in: fields)
        // A key the user named (or an explicit mode) must be there; a guessed one may be absent.
        if expiryValue == nil, endpoint.expiryKey != nil || endpoint.expiryMode != .auto {
            throw .missingKey(expiryKey, present: fields.keys.sorted(), flag: "--expiry-key (or --expiry jwt)")
        }
        return (token, shape, expiryValue)
    }

    /// Whether `text` starts with "Bearer " in any case. Its first seven bytes lowercased, not the
    /// whole token: this runs for every answer the tap reads.
    static func hasBearerPrefix(_ text: String) -> Bool {
        let prefix = text.utf8.prefix(7)
        guard prefix.count == 7 else { return false }
        return zip(prefix, "bearer ".utf8).allSatisfy { byte, wanted in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == wanted : byte == wanted
        }
    }

    /// Three base64url parts: enough to try it as a JWT and let the decoder name what is wrong.
    private static func looksLikeJWT(_ text: String) -> Bool {
        let body = Self.hasBearerPrefix(text) ? String(text.dropFirst(7)) : text
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0].hasPrefix("eyJ") && body.unicodeScalars.allSatisfy { isBase64URLOrDot($0) }
    }

    private static func isBase64URLOrDot(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_", ".", "=": true
        default: false
        }
    }

    /// The error a caller sees for failed rules, or nil when none failed. A wrong ID and an
    /// expired token alone keep their own cases: they are the ones users most need to tell apart.
    public static func error(for findings: [RuleResult], jwt: DecodedJWT, kind: ProviderKind, id: String, now: Date)
        -> FleetAuthError?
    {
        let failures = findings.failures
        guard let only = failures.first else { return nil }
        if failures.count == 1 {
            if only.rule == .expiry, let exp = jwt.expiresAt {
                return .alreadyExpired(expiredSecondsAgo: InputBounds.wholeSeconds(now.timeIntervalSince(exp)))
            }
            if only.rule == .authorization, let found = jwt.claims["authorization"]?[kind.claimName]?.stringValue,
                found != id
            {
                return .wrongID(claim: kind.claimName, expected: id, found: found)
            }
        }
        // A clock that is off is no failure itself, but it is often the cause of one: it goes along.
        return .rejected(failures + findings.filter { $0.rule == .clock && $0.level == .warn })
    }

    /// When the token stops being served: the signed `exp`, or the body's expiry when it is
    /// earlier. A body number that cannot be a time for this token (past, beyond an hour, not a
    /// number) never refuses a token the JWT says is valid: it is reported and `exp` is used.
    private func bodyExpiry(_ value: JSONValue?, shape: ResponseShape, signed exp: Date, now: Date) -> (
        Date, RuleResult?
    ) {
        let key = shape.expiryKey ?? "expiry"
        // A shape known to send milliseconds or a duration says how to read it; `auto` would guess.
        let mode = endpoint.expiryMode == .auto ? shape.expiryMode : endpoint.expiryMode
        let claim = InputBounds.wholeSeconds(exp.timeIntervalSince(now))
        guard let value else {
            if endpoint.expiryMode == .jwt { return (exp, nil) }
            let missing = shape.expiryKey.map { "no \"\($0)\"" } ?? "no expiry key"
            return (
                exp, RuleResult(.expiryField, .note, "\(missing) in the response; using the JWT exp (\(claim) s left)")
            )
        }
        let date: Date
        if let raw = value.numberValue ?? value.stringValue.flatMap(Self.numericString) {
            // A number, or one written as a string (protobuf's JSON form of an int64).
            do { date = try expiry(raw, key: key, mode: mode, now: now) } catch {
                return (
                    exp, RuleResult(.expiryField, .warn, "\(error.description); using the JWT exp (\(claim) s left)")
                )
            }
        } else if let text = value.stringValue, let parsed = Self.iso8601(text) {
            date = parsed
        } else {
            return (
                exp,
                RuleResult(
                    .expiryField, .warn,
                    "\"\(key)\" is a \(Self.preview(value)), not a number or an ISO-8601 time; using the JWT exp (\(claim) s left)"
                )
            )
        }
        let said = InputBounds.wholeSeconds(date.timeIntervalSince(now))
        let reading = endpoint.expiryMode == .auto ? "" : " read as \(mode.rawValue)"
        if date <= now || said > JWTInspector.maximumLifetime + Int(Self.agreementTolerance) {
            let why = date <= now ? "in the past" : "beyond Fleet Engine's \(JWTInspector.maximumLifetime) s"
            return (
                exp,
                RuleResult(
                    .expiryField, .warn,
                    "\"\(key)\"\(reading) says \(said) s left, \(why); the JWT exp says \(claim) s, using exp (check --expiry)"
                )
            )
        }
        guard abs(date.timeIntervalSince(exp)) > Self.agreementTolerance else { return (min(date, exp), nil) }
        if date > exp {
            return (
                exp,
                RuleResult(
                    .expiryField, .warn,
                    "\"\(key)\"\(reading) says \(said) s left but the JWT exp says \(claim) s; using exp")
            )
        }
        return (
            date,
            RuleResult(
                .expiryField, .warn,
                "\"\(key)\"\(reading) says \(said) s left, before the JWT exp (\(claim) s); using the earlier")
        )
    }

    /// Anything further than this from now is no expiry in any mode (about 317 years), so the
    /// numbers that follow stay in range of an `Int` and of a sensible message. `decode` shows
    /// claims past it as raw numbers.
    public static let implausibleSeconds: TimeInterval = 1e10

    /// The backend's expiry as a date, or why the number cannot be one.
    private func expiry(_ raw: Double, key: String, mode: ExpiryMode, now: Date) throws(FleetAuthError) -> Date {
        let shown = Self.format(raw)
        guard raw.isFinite else { throw .invalidExpiry(key: key, value: shown, reason: "not a finite number") }
        guard raw >= 0 else { throw .invalidExpiry(key: key, value: shown, reason: "negative") }
        let date = Self.interpret(raw, mode: mode, now: now)
        guard abs(date.timeIntervalSince(now)) < Self.implausibleSeconds else {
            throw .invalidExpiry(key: key, value: shown, reason: "read as \(mode.rawValue) it is centuries away")
        }
        return date
    }

    /// A number written as a string, as protobuf's JSON writes an int64: digits, a sign, a point,
    /// an exponent; not "NaN" or "inf", which Double(String) would take.
    static func numericString(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy({ "0123456789+-.eE".unicodeScalars.contains($0) })
        else { return nil }
        return Double(trimmed)
    }

    /// `2026-11-23T20:00:00Z`, with or without fractional seconds or an offset.
    static func iso8601(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    /// Reads a raw expiry number. `auto` goes by magnitude: above 1e11 is epoch milliseconds
    /// (year 5138 in seconds), above 1e9 epoch seconds (2001 on), anything less a duration.
    public static func interpret(_ raw: Double, mode: ExpiryMode, now: Date) -> Date {
        switch mode {
        case .absolute: return Date(timeIntervalSince1970: raw)
        case .absoluteMilliseconds: return Date(timeIntervalSince1970: raw / 1000)
        case .relative: return now.addingTimeInterval(raw)
        case .auto, .jwt:
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
        return shorten(SecretRedactor.redact(line), max: max)
    }

    /// The `Retry-After` header as whole seconds from now: delta-seconds or an HTTP date, capped at
    /// an hour (a token never lives longer, so a longer wait is a misconfigured server).
    public static func retryAfterSeconds(_ value: String?, now: Date) -> Int? { RetryAfter.seconds(value, now: now) }

    private static func isHTML(_ response: TransportResponse) -> Bool {
        if response.header("Content-Type")?.lowercased().contains("text/html") == true { return true }
        let start = String(decoding: response.body.prefix(64), as: UTF8.self).drop { $0.isWhitespace }.lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html") || start.hasPrefix("<head")
            || start.hasPrefix("<body")
    }

    private static func htmlTitle(_ body: Data) -> String? {
        let text = String(decoding: body.prefix(8192), as: UTF8.self)
        guard let open = text.range(of: "<title>", options: .caseInsensitive),
            let close = text.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
        else { return nil }
        let title = text[open.upperBound..<close.lowerBound].split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
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
