import Foundation
import JSONValues
import ProviderVocabulary
import Redaction
import TokenReading

/// A fetched token as a recording keeps it: fingerprint, claims, rule results and the redacted
/// display form, never the token itself (not even under `--reveal`): a recording is a file that
/// travels, and a whole token in it would be a credential handed on.
public struct RecordedToken: Codable, Equatable, Sendable {
    public var fingerprint: String
    /// `TokenRedactor.redact` of the token: what the pane and `watch` show of it.
    public var redacted: String
    public var id: String
    public var expiresAt: Double
    public var receivedAt: Double
    public var refreshAt: Double?
    public var header: JSONValue
    public var claims: JSONValue
    public var findings: [RecordedFinding]
    public var clockSkew: Double?
    public var shape: String?

    enum CodingKeys: String, CodingKey {
        case fingerprint, redacted, id, header, claims, findings, shape
        case expiresAt = "expires_at"
        case receivedAt = "received_at"
        case refreshAt = "refresh_at"
        case clockSkew = "clock_skew"
    }

    public init(_ token: FetchedToken, base: RecordingTimeBase) {
        fingerprint = token.fingerprint
        redacted = TokenRedactor.redact(token.token)
        id = token.id
        expiresAt = base.offset(token.expiresAt)
        receivedAt = base.offset(token.receivedAt)
        refreshAt = token.refreshAt.map(base.offset)
        header = token.jwt.header
        claims = token.jwt.claims
        findings = token.findings.map(RecordedFinding.init)
        clockSkew = token.clockSkew
        shape = token.shape
    }

    /// The token as a replay shows it. Its text is made so that redacting it gives the recorded
    /// display form again, and revealing it says the token was not recorded.
    public func token(base: RecordingTimeBase) -> FetchedToken {
        var token = FetchedToken(
            token: Self.standIn(for: redacted), id: id, expiresAt: base.date(expiresAt),
            receivedAt: base.date(receivedAt),
            jwt: DecodedJWT(header: header, claims: claims, signature: ""),
            findings: findings.compactMap(\.result), clockSkew: clockSkew)
        token.fingerprint = fingerprint
        token.shape = shape
        token.refreshAt = refreshAt.map(base.date)
        return token
    }

    /// A text `TokenRedactor.redact` turns into `redacted`: "head…tail" comes from a three-part
    /// text with that head and tail; "‹hidden, N chars›" from N characters that are no token.
    static func standIn(for redacted: String) -> String {
        let parts = redacted.split(separator: "…", omittingEmptySubsequences: false)
        if parts.count == 2, parts[0].count == 12, parts[1].count == 6 {
            return "\(parts[0])….‹not recorded: a recording keeps no whole token›.…\(parts[1])"
        }
        let count = redacted.firstMatch(of: /‹hidden, (\d+) chars›/).flatMap { Int($0.1) } ?? 0
        return String(repeating: "‹", count: count)
    }
}

public struct RecordedFinding: Codable, Equatable, Sendable {
    public var rule: String
    public var level: String
    public var reason: String

    init(_ result: RuleResult) {
        rule = result.rule.name
        level = result.level.name
        // Reasons quote what the backend sent: redacted as error text is.
        reason = Redaction.text(result.reason)
    }

    /// The result again; nil for a rule this version does not know (a newer recording's), which
    /// the replay leaves out rather than refuse the whole line.
    var result: RuleResult? {
        Rule(rawValue: rule).map { RuleResult($0, RuleLevel.allCases.first { $0.name == level } ?? .note, reason) }
    }
}

/// Text from outside (errors, reasons, messages) as a recording may hold it: JWTs and URL
/// credentials redacted, as on every screen.
enum Redaction {
    static func text(_ text: String) -> String { SecretRedactor.redact(text) }
}
