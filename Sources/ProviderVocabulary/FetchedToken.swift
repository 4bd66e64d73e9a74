import Foundation
import TokenReading

/// A token accepted from the backend, with what the provider learned while checking it.
public struct FetchedToken: Sendable, Equatable {
    public var token: String
    public var id: String
    /// When the provider stops serving it: the signed `exp`, or the response's expiry when that
    /// is earlier.
    public var expiresAt: Date
    public var receivedAt: Date
    /// The token's header, claims and signature. The `.fetched` event carries them decoded, once,
    /// for all its readers; a provider's cache holds the token without them (`cacheable`), as
    /// its own text holds them, and they are decoded again when someone asks (`hydrated`).
    public var jwt: DecodedJWT {
        get { decoded ?? Self.decode(token) }
        set {
            decoded = newValue
            signedLifetime = Self.signedLifetime(newValue)
        }
    }
    /// Nil only in a provider's cache (see `jwt`).
    private var decoded: DecodedJWT?
    /// The signed `exp - iat`, kept when the decoded parts are not: the refresh point needs it.
    private var signedLifetime: TimeInterval?
    /// The rules' results on this token as it was received that say something (`TokenRules`, the
    /// expiry field, the backend's clock, the signature): every warning and note, and the clock's
    /// and the signature's verdict whatever it is, as the pane shows those. A passed rule's "✓"
    /// is not kept: a fleet holds one token per member, and eight of them were a third of its bytes.
    /// None is a fail: a failing token is never accepted.
    public var findings: [RuleResult]
    /// The first 8 hex digits of SHA-256 over the token: tells tokens apart without revealing them.
    public var fingerprint: String
    /// This machine's clock minus the backend's, from the response's `Date` header; nil without one.
    public var clockSkew: TimeInterval?
    /// The response shape the token came in (detected or configured), as a person reads it.
    public var shape: String?
    /// When the provider will start fetching this token's successor (the expiry itself when the
    /// margin is 0). Set by the provider as it caches the token; nil until then.
    public var refreshAt: Date?

    /// What did not make the token unusable but is off, e.g. an expiry field that disagrees with
    /// `exp`, as "rule: reason".
    public var warnings: [String] { findings.filter { $0.level == .warn }.map { "\($0.rule): \($0.reason)" } }
    /// Neutral facts other than the signature's: an expiry taken from `exp`, say.
    public var notes: [String] {
        findings.filter { $0.level == .note && $0.rule != .signature }.map { "\($0.rule): \($0.reason)" }
    }
    /// The signature rule's result, if one ran.
    public var signature: RuleResult? { findings.last { $0.rule == .signature } }

    /// The findings worth keeping with a token: all but the passed rules other than `clock` and `signature`.
    public static func kept(_ findings: [RuleResult]) -> [RuleResult] {
        findings.filter { $0.level != .ok || $0.rule == .clock || $0.rule == .signature }
    }

    /// How long the token lives: the signed `exp - iat` when the JWT has both, else the time from
    /// receipt to expiry (short by the fetch latency and by `iat` being rounded down).
    public var lifetime: TimeInterval { signedLifetime ?? expiresAt.timeIntervalSince(receivedAt) }

    private static func signedLifetime(_ jwt: DecodedJWT) -> TimeInterval? {
        // In Double: a hostile token's exp - iat can overflow an Int64.
        guard let iat = jwt.claims["iat"]?.intValue, let exp = jwt.claims["exp"]?.intValue else { return nil }
        return TimeInterval(exp) - TimeInterval(iat)
    }

    /// The text, the decoded parts and the findings are taken, not copied: the tap makes one of
    /// these for every answer it reads, and each copied part was a retain and a release.
    public init(
        token: consuming String, id: String, expiresAt: Date, receivedAt: Date, jwt: consuming DecodedJWT,
        findings: consuming [RuleResult] = [], clockSkew: TimeInterval? = nil
    ) {
        self.fingerprint = TokenFingerprint.of(token)
        self.signedLifetime = Self.signedLifetime(jwt)
        self.token = token
        self.id = id
        self.expiresAt = expiresAt
        self.receivedAt = receivedAt
        self.decoded = jwt
        self.findings = findings
        self.clockSkew = clockSkew
    }

    /// This token as a provider caches it: without its decoded parts, about 1.2 KB of a fleet
    /// member's 2.5. Only for a token whose `jwt` was decoded from its own text (the decoder's).
    package var cacheable: FetchedToken {
        var slim = self
        slim.decoded = nil
        return slim
    }

    /// This token with its decoded parts at hand, for a reader that asks for them again and again
    /// (the dashboard's pane, on every frame).
    public var hydrated: FetchedToken {
        guard decoded == nil else { return self }
        var whole = self
        whole.decoded = jwt
        return whole
    }

    /// A cached token's text decodes as it did when it was accepted; the empty parts are for
    /// the impossible case only.
    private static func decode(_ token: String) -> DecodedJWT {
        (try? JWTInspector.decode(token)) ?? DecodedJWT(header: .object([:]), claims: .object([:]), signature: "")
    }

    /// Equal when every field is, the decoded parts compared only when either side holds them
    /// apart from the text (a cached token and its event's are equal).
    public static func == (a: FetchedToken, b: FetchedToken) -> Bool {
        guard a.token == b.token, a.id == b.id, a.expiresAt == b.expiresAt, a.receivedAt == b.receivedAt,
            a.findings == b.findings, a.fingerprint == b.fingerprint, a.clockSkew == b.clockSkew,
            a.shape == b.shape, a.refreshAt == b.refreshAt, a.signedLifetime == b.signedLifetime
        else { return false }
        if a.decoded == nil, b.decoded == nil { return true }
        return a.jwt == b.jwt
    }
}

extension FetchedToken {
    /// The refresh margin, but never more than half the token's lifetime: a 60 s demo token under
    /// the default 300 s margin would otherwise be refreshed on every call. The provider refreshes
    /// by it and the pane draws it, so it lives with the token both read.
    public static func effectiveMargin(_ margin: TimeInterval, lifetime: TimeInterval) -> TimeInterval {
        min(margin, max(0, lifetime) / 2)
    }
}
