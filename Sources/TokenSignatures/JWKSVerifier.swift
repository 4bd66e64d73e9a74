import Foundation
import JWTKit
import ProviderVocabulary
import Redaction
import TokenJudging
import TokenReading

/// Where a JSON Web Key Set comes from.
public enum KeySetLocation: Sendable, Hashable, CustomStringConvertible {
    case file(String)
    case url(URL)

    /// `--jwks`: an http(s) URL, else a file path.
    public init(argument: String) {
        if let url = URL(string: argument), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        {
            self = .url(url)
        } else {
            self = .file(argument)
        }
    }

    public var description: String {
        switch self {
        case .file(let path): path
        case .url(let url): SecretRedactor.redact(url.absoluteString)
        }
    }
}

/// Verifies RS256 signatures against a JWKS through jwt-kit: a fixed key set (`--jwks`, or the
/// embedded server's own), or, with none, the key set Google publishes for the issuing service
/// account. Key sets are cached by `kid`; a `kid` not in the cached set refetches it once, at most
/// once a minute per set, so a rotated key is picked up and a bogus one cannot make us hammer
/// the key server.
public actor JWKSVerifier: SignatureVerifier {
    /// Google publishes each service account's public keys here.
    public static func googleKeySetURL(for email: String) -> URL? {
        guard
            let escaped = email.addingPercentEncoding(
                withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"]))
        else { return nil }
        return URL(string: "https://www.googleapis.com/service_accounts/v1/metadata/jwk/\(escaped)")
    }

    public static let refetchInterval: TimeInterval = 60

    private struct LoadedSet {
        var keys: JWTKeyCollection
        var kids: Set<String>
        /// Each key alone, in the set's order: a token without a kid is tried against each, so the
        /// result can name the key that signed it.
        var singles: [(kid: String, keys: JWTKeyCollection)]
    }

    private let fixed: KeySetLocation?
    private let transport: any TokenTransport
    private let clock: any ProviderClock
    private let googleURL: @Sendable (String) -> URL?
    private let timeout: TimeInterval
    private var sets: [KeySetLocation: LoadedSet] = [:]
    private var lastLoad: [KeySetLocation: Date] = [:]

    /// - Parameters:
    ///   - keySet: the key set every token is checked against; nil tries Google's key set for
    ///     an `iss` that is a service account, and reports other tokens as not checked.
    ///   - googleURL: where a service account's key set is published (tests point it at loopback).
    public init(
        keySet: KeySetLocation?, transport: any TokenTransport, clock: any ProviderClock = SystemClock(),
        timeout: TimeInterval = 5,
        googleURL: @escaping @Sendable (String) -> URL? = JWKSVerifier.googleKeySetURL(for:)
    ) {
        self.fixed = keySet
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
        self.googleURL = googleURL
    }

    /// Reads a key set file now, so that a bad `--jwks FILE` is reported before the screen starts.
    public static func validate(file path: String) throws(FleetAuthError) {
        _ = try parse(try read(path), source: path)
    }

    public func verify(_ token: String, jwt: DecodedJWT) async -> RuleResult {
        let location: KeySetLocation
        if let fixed {
            location = fixed
        } else {
            guard let iss = jwt.claims["iss"]?.stringValue, TokenRules.serviceAccountProject(iss) != nil,
                let url = googleURL(iss)
            else {
                return RuleResult(
                    .signature, .note,
                    "not checked: no --jwks, and iss is not a Google service account whose keys could be fetched")
            }
            location = .url(url)
        }
        // An empty kid names no key (TokenRules notes it): tried against every key, as no kid is.
        let kid = jwt.header["kid"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let set: LoadedSet
        do {
            set = try await loaded(location, needing: kid)
        } catch {
            return RuleResult(.signature, .note, "not checked: key set \(location) unavailable: \(error.description)")
        }
        if let kid, !set.kids.contains(kid) {
            return RuleResult(.signature, .fail, "kid \(kid) not in the JWKS at \(location) (key rotated or deleted?)")
        }
        guard let kid else { return await verifyWithoutKid(token, set: set, location: location) }
        do {
            _ = try await set.keys.verify(token, as: AnyClaims.self)
            return RuleResult(.signature, .ok, "RS256 verified with key \(kid) from \(location)")
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            return RuleResult(
                .signature, .fail,
                "signature does not verify against key \(kid) from \(location): the token was altered or signed by another key"
            )
        } catch {
            return RuleResult(
                .signature, .fail, "cannot verify against key \(kid) from \(location): \(Self.describe(error))")
        }
    }

    /// A token that names no key (java-fleetengine-auth's impersonating signers mint so) is checked
    /// as Fleet Engine checks it: against each key of the set; the first that verifies is named.
    private func verifyWithoutKid(_ token: String, set: LoadedSet, location: KeySetLocation) async -> RuleResult {
        var lastProblem: String?
        for single in set.singles {
            do {
                _ = try await single.keys.verify(token, as: AnyClaims.self)
                let tried =
                    set.singles.count == 1
                    ? "the set's one key tried" : "the set's \(set.singles.count) keys tried in turn"
                return RuleResult(
                    .signature, .ok, "RS256 verified with key \(single.kid) from \(location) (no kid: \(tried))")
            } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
                continue
            } catch {
                lastProblem = Self.describe(error)
            }
        }
        if let lastProblem {
            return RuleResult(.signature, .fail, "cannot verify against the keys from \(location): \(lastProblem)")
        }
        let keys = set.singles.count == 1 ? "the one key" : "any of the \(set.singles.count) keys"
        return RuleResult(
            .signature, .fail,
            "signature does not verify against \(keys) from \(location) (no kid): the token was altered or signed by another key"
        )
    }

    /// The cached set for `location`, loading it if absent, or reloading it when `kid` is not in
    /// it and the last load is older than `refetchInterval`.
    private func loaded(_ location: KeySetLocation, needing kid: String?) async throws(FleetAuthError) -> LoadedSet {
        let now = clock.now()
        if let set = sets[location] {
            guard let kid, !set.kids.contains(kid) else { return set }
            if let last = lastLoad[location], now.timeIntervalSince(last) < Self.refetchInterval { return set }
        }
        // Recorded before the await, so concurrent callers with the same unknown kid load once.
        lastLoad[location] = now
        let data: Data
        switch location {
        case .file(let path): data = try Self.read(path)
        case .url(let url):
            let response: TransportResponse
            do {
                response = try await transport.send(
                    TransportRequest(url: url, headers: [], timeout: timeout, maxBodyBytes: 1 << 20))
            } catch {
                throw (error as? FleetAuthError) ?? .other("\(error)")
            }
            guard response.status == 200 else {
                throw FleetAuthError.httpStatus(
                    code: response.status, body: String(decoding: response.body.prefix(80), as: UTF8.self))
            }
            data = response.body
        }
        let jwks = try Self.parse(data, source: location.description)
        let keys = JWTKeyCollection()
        do { try await keys.add(jwks: jwks) } catch {
            throw FleetAuthError.other("JWKS at \(location) has a key jwt-kit cannot use: \(Self.describe(error))")
        }
        var singles: [(kid: String, keys: JWTKeyCollection)] = []
        for jwk in jwks.keys {
            guard let kid = jwk.keyIdentifier?.string else { continue }
            let single = JWTKeyCollection()
            do { try await single.add(jwk: jwk, isDefault: true) } catch { continue }
            singles.append((kid, single))
        }
        let set = LoadedSet(keys: keys, kids: Set(jwks.keys.compactMap { $0.keyIdentifier?.string }), singles: singles)
        sets[location] = set
        return set
    }

    private static func read(_ path: String) throws(FleetAuthError) -> Data {
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read it" : "no such file"
            throw FleetAuthError.other("--jwks \(path): \(reason)")
        }
    }

    private static func parse(_ data: Data, source: String) throws(FleetAuthError) -> JWKS {
        let jwks: JWKS
        do { jwks = try JSONDecoder().decode(JWKS.self, from: data) } catch {
            throw FleetAuthError.other("\(source) is not a JWKS ({\"keys\": [...]}): \(describe(error))")
        }
        guard !jwks.keys.isEmpty else { throw FleetAuthError.other("\(source) is a JWKS with no keys") }
        return jwks
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? JWTError { return error.reason ?? "\(error.errorType)" }
        if let error = error as? DecodingError {
            switch error {
            case .keyNotFound(let key, _): return "no \"\(key.stringValue)\""
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return context.debugDescription
            @unknown default: return "\(error)"
            }
        }
        return "\(error)"
    }
}

/// The payload jwt-kit decodes while it checks the signature: nothing, because `TokenRules`
/// judges the claims, and jwt-kit's own claim checks would judge them differently.
private struct AnyClaims: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
