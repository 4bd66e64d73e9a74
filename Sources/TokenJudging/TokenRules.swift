import Foundation
import JSONValues
import ProviderVocabulary
import TokenReading

/// Fleet Engine's rules for a token, as it applies them on each call: one place, so the pane,
/// `watch` and `decode` cannot disagree. Signatures need a key set and are judged by a
/// `SignatureVerifier`; the backend's clock needs a response and is judged by `clock(...)`.
public enum TokenRules {
    public static let fleetEngineAudience = JWTInspector.fleetEngineAudience
    /// Fleet Engine refuses a token whose `exp - iat` is longer than an hour.
    public static let maximumLifetime = Int64(JWTInspector.maximumLifetime)
    /// The SDKs ask for a new token when less than five minutes are left, so a shorter one is
    /// fetched again at every call.
    public static let shortestUsefulLifetime: Int64 = 300
    /// Fleet Engine tolerates this much of an `iat` in its future (clock skew) before refusing.
    public static let refusedSkew: TimeInterval = 600
    /// Beyond this an `iat` in the future or a clock difference is worth a warning.
    public static let warnedSkew: TimeInterval = 60

    /// The worst of the rules on `token` for `id` at `now`, `.fail` for one that does not decode:
    /// the verdict a Fleet Engine answer is compared with (`FleetEngineCaller`).
    @Sendable public static func verdict(_ token: String, kind: ProviderKind, id: String, now: Date) -> RuleLevel {
        guard let jwt = try? JWTInspector.decode(token) else { return .fail }
        return evaluate(jwt, kind: kind, id: id, now: now).worst
    }

    /// The `authorization` members Fleet Engine knows, per solution; any other is listed.
    public static let knownAuthorizationClaims: Set<String> = [
        "tripid", "vehicleid", "deliveryvehicleid", "trackingid", "taskid", "taskids",
    ]

    /// Every header and claim rule for `kind`. `id` nil accepts any ID (`decode` without an ID
    /// flag); `providerID` is the Google Cloud project the issuer must belong to, when known.
    /// `lifetimeChosen`: the backend is tokendash's embedded server, whose token lifetime the
    /// user set, so a short one is a fact of the demo (a note), not the backend's mistake (a warning).
    /// `memo`: the tap's, for the header and issuer its backend's tokens share.
    public static func evaluate(
        _ jwt: DecodedJWT, kind: ProviderKind, id: String?, now: Date,
        providerID: String? = nil, lifetimeChosen: Bool = false, memo: Memo? = nil
    ) -> [RuleResult] {
        var results = memo?.header(jwt.header) ?? header(jwt.header)
        // Room for the claims' six and the decoder's few after them, at once: the header's results
        // come from the memo, shared, and grew twice from their own size.
        results.reserveCapacity(results.count + 9)
        results.append(memo?.issuer(jwt.claims, providerID: providerID) ?? issuer(jwt.claims, providerID: providerID))
        results.append(audienceRule(jwt.claims["aud"]))
        results.append(contentsOf: times(jwt.claims, now: now, lifetimeChosen: lifetimeChosen))
        results.append(authorization(jwt.claims["authorization"], kind: kind, id: id))
        return results
    }

    // MARK: - Header

    static func header(_ header: JSONValue) -> [RuleResult] {
        var results: [RuleResult] = []
        switch header["alg"] {
        case .string("RS256")?: results.append(RuleResult(.alg, .ok, "RS256"))
        case .string(let alg)? where alg.lowercased() == "none":
            results.append(RuleResult(.alg, .fail, "alg is none (an unsigned token), expected RS256"))
        case .string(let alg)?: results.append(RuleResult(.alg, .fail, "alg is \(alg), expected RS256"))
        case nil: results.append(RuleResult(.alg, .fail, "no alg header, expected RS256"))
        case let other?: results.append(RuleResult(.alg, .fail, "alg is a \(other.typeName), expected \"RS256\""))
        }
        switch header["typ"] {
        case .string(let typ)? where typ.uppercased() == "JWT": results.append(RuleResult(.typ, .ok, "JWT"))
        case nil: results.append(RuleResult(.typ, .warn, "no typ header; Google's libraries write \"JWT\""))
        case let other?:
            results.append(RuleResult(.typ, .fail, "typ is \(other.stringValue ?? other.description), expected JWT"))
        }
        // Fleet Engine's JWT page lists kid (the key file's private_key_id), but Google's own
        // java-fleetengine-auth mints without one from ImpersonatedSigner and
        // DefaultServiceAccountSigner (auth0 java-jwt, signed through IAM signBlob), and Fleet
        // Engine accepts those: the signature is then checked against each of the account's keys.
        switch header["kid"] {
        case .string(let kid)? where !kid.isEmpty: results.append(RuleResult(.kid, .ok, kid))
        case nil:
            results.append(
                RuleResult(
                    .kid, .note,
                    "no kid: the signature is checked against every key of the issuer's key set; java-fleetengine-auth's impersonating signers mint this way"
                ))
        case .string?:
            results.append(
                RuleResult(
                    .kid, .note,
                    "kid is empty, so it names no key: the signature is checked against every key of the issuer's key set"
                ))
        case let other?:
            // RFC 7515 section 4.1.4: "The kid value MUST be a case-sensitive string"; a JOSE parser refuses the header.
            results.append(
                RuleResult(.kid, .fail, "kid is a JSON \(other.typeName); a JWT's kid must be a string (RFC 7515)"))
        }
        return results
    }

    // MARK: - Issuer

    /// The Google Cloud project of a service-account email, or nil when `email` is not one.
    /// `NAME@PROJECT.iam.gserviceaccount.com` is the form Fleet Engine's roles are granted to;
    /// App Engine's default account is `PROJECT@appspot.gserviceaccount.com`.
    public static func serviceAccountProject(_ email: String) -> String? {
        // The tap asks this of every token: plain ASCII, the usual case, is read as bytes.
        if email.utf8.allSatisfy({ $0 < 0x80 }) { return asciiServiceAccountProject(email) }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        let domain = parts[1].lowercased()
        for suffix in [".iam.gserviceaccount.com"] where domain.hasSuffix(suffix) {
            let project = domain.dropLast(suffix.count)
            return project.isEmpty || project.contains(".") ? nil : String(project)
        }
        if domain == "appspot.gserviceaccount.com" { return String(parts[0]) }
        return nil
    }

    /// `serviceAccountProject` for ASCII text, with the same answers, read where its bytes lie.
    private static func asciiServiceAccountProject(_ email: String) -> String? {
        var text = email
        return text.withUTF8 { bytes -> String? in
            guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0,
                !bytes[(at + 1)...].contains(UInt8(ascii: "@"))
            else { return nil }
            let domain = UnsafeBufferPointer(rebasing: bytes[(at + 1)...])
            func lowered(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
            let suffix = ".iam.gserviceaccount.com".utf8
            if domain.count >= suffix.count, domain.suffix(suffix.count).lazy.map(lowered).elementsEqual(suffix) {
                let project = domain.dropLast(suffix.count)
                guard !project.isEmpty, !project.contains(UInt8(ascii: ".")) else { return nil }
                return String(unsafeUninitializedCapacity: project.count) { out in
                    for (i, byte) in project.enumerated() { out[i] = lowered(byte) }
                    return project.count
                }
            }
            if domain.lazy.map(lowered).elementsEqual("appspot.gserviceaccount.com".utf8) {
                return String(decoding: bytes[..<at], as: UTF8.self)
            }
            return nil
        }
    }

    static func issuer(_ claims: JSONValue, providerID: String?) -> RuleResult {
        let iss = claims["iss"]?.stringValue
        let sub = claims["sub"]?.stringValue
        let rule = Rule.issuer
        switch (iss, sub) {
        case (nil, nil):
            return RuleResult(rule, .fail, "no iss and no sub claim: Fleet Engine needs the service account in both")
        case (nil, _): return RuleResult(rule, .fail, "no iss claim")
        case (_, nil): return RuleResult(rule, .fail, "no sub claim")
        case (let iss?, let sub?) where iss != sub:
            return RuleResult(rule, .fail, "iss \"\(iss)\" and sub \"\(sub)\" differ; both must be the service account")
        case (let iss?, _):
            guard let project = serviceAccountProject(iss) else {
                if providerID != nil {
                    return RuleResult(
                        rule, .warn,
                        "\(iss) is not a service-account email, so its project cannot be matched to --provider-id")
                }
                return RuleResult(
                    rule, .warn, "\(iss) is not a service-account email (NAME@PROJECT.iam.gserviceaccount.com)")
            }
            if let providerID, providerID.lowercased() != project {
                return RuleResult(rule, .fail, "\(iss) belongs to project \(project), not --provider-id \(providerID)")
            }
            return RuleResult(rule, .ok, "\(iss) (project \(project))")
        }
    }

    // MARK: - Audience and times

    static func audienceRule(_ aud: JSONValue?) -> RuleResult {
        let audience = fleetEngineAudience
        switch aud {
        case .string(let exact)? where exact == audience: return RuleResult(.audience, .ok, audience)
        case nil: return RuleResult(.audience, .fail, "no aud claim, expected \(audience)")
        case .string(let other)?:
            let hint = other.hasPrefix(audience) || audience.hasPrefix(other) ? " (exact match required)" : ""
            return RuleResult(.audience, .fail, "aud is \(other), expected \(audience)\(hint)")
        case let other?:
            return RuleResult(.audience, .fail, "aud is a JSON \(other.typeName), expected the string \(audience)")
        }
    }

    static func times(_ claims: JSONValue, now: Date, lifetimeChosen: Bool = false) -> [RuleResult] {
        var results: [RuleResult] = []
        results.reserveCapacity(3)
        // Each claim's integer, or its failure noted.
        func integer(_ rule: Rule) -> Int64? {
            let name = rule.name
            switch claims[name] {
            case nil: results.append(RuleResult(rule, .fail, "no \(name) claim"))
            case .int(let v)?: return v
            case .double(let d)?: results.append(RuleResult(rule, .fail, "\(name) is \(d), not an integer"))
            case let other?:
                results.append(RuleResult(rule, .fail, "\(name) is a JSON \(other.typeName), not an integer"))
            }
            return nil
        }
        let issued = integer(.issuedAt)
        let expires = integer(.expiry)
        let nowSeconds = now.timeIntervalSince1970
        if let iat = issued {
            // Double: a hostile iat can be Int64.max, and the difference must not trap.
            let ahead = Double(iat) - nowSeconds
            let shown = InputBounds.wholeSeconds(ahead)
            if ahead > refusedSkew {
                results.append(
                    RuleResult(
                        .issuedAt, .fail,
                        "iat is \(shown) s in the future; Fleet Engine refuses beyond \(Int(refusedSkew)) s (a clock is wrong)"
                    ))
            } else if ahead > warnedSkew {
                results.append(
                    RuleResult(
                        .issuedAt, .warn,
                        "iat is \(shown) s in the future: clock skew (Fleet Engine refuses beyond \(Int(refusedSkew)) s)"
                    ))
            } else {
                results.append(
                    RuleResult(
                        .issuedAt, .ok,
                        ahead > 0
                            ? "\(shown) s in the future, within skew"
                            : "\(InputBounds.wholeSeconds(-ahead)) s ago"))
            }
        }
        if let exp = expires {
            let left = Double(exp) - nowSeconds
            let shown = InputBounds.wholeSeconds(left)
            if left <= 0 {
                results.append(RuleResult(.expiry, .fail, "expired \(InputBounds.wholeSeconds(-left)) s ago"))
            } else {
                results.append(RuleResult(.expiry, .ok, "\(shown) s left"))
            }
        }
        if let iat = issued, let exp = expires {
            let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
            if exp < iat {
                results.append(RuleResult(.lifetime, .fail, "exp \(exp) is before iat \(iat)"))
            } else if overflow || lifetime > maximumLifetime {
                let shown = overflow ? "more than \(Int64.max)" : "\(lifetime)"
                results.append(
                    RuleResult(.lifetime, .fail, "exp - iat is \(shown) s, over Fleet Engine's \(maximumLifetime) s"))
            } else if lifetime < shortestUsefulLifetime, lifetimeChosen {
                results.append(
                    RuleResult(
                        .lifetime, .note,
                        "\(lifetime) s, as set for the embedded server (under \(shortestUsefulLifetime) s the SDKs fetch again at every call)"
                    ))
            } else if lifetime < shortestUsefulLifetime {
                results.append(
                    RuleResult(
                        .lifetime, .warn,
                        "\(lifetime) s, under \(shortestUsefulLifetime) s: the SDKs will fetch again at every call"))
            } else {
                results.append(RuleResult(.lifetime, .ok, "\(lifetime) s"))
            }
        }
        return results
    }

    // MARK: - Authorization

    static func authorization(_ value: JSONValue?, kind: ProviderKind, id: String?) -> RuleResult {
        let rule = Rule.authorization
        let accepted = kind.acceptedClaimNames
        // "tripid", or "trackingid, taskid or taskids": what a message says the token needs. Made
        // only for a message: the tap judges thousands of tokens a second that need none.
        var wanted: String {
            accepted.count == 1
                ? kind.claimName
                : accepted.dropLast().joined(separator: ", ") + " or " + (accepted.last ?? kind.claimName)
        }
        guard let value else {
            return RuleResult(rule, .fail, "no authorization claim; a \(kind.tokenNoun) needs authorization.\(wanted)")
        }
        guard case .object(let members) = value else {
            return RuleResult(
                rule, .fail, "authorization is a JSON \(value.typeName), expected an object with \(wanted)")
        }
        // The token nearly every backend mints: one member, the kind's, naming the ID asked for.
        // What the general walk below would find, without its lists: the tap judges thousands a second.
        if members.count == 1, let (claim, member) = members.first, claim != "taskids", accepted.contains(claim),
            case .string(let claimed) = member, claimed == id, claimed != "*", FleetEngineID.problem(claimed) == nil
        {
            return RuleResult(rule, .ok, "\(claim) \(claimed)")
        }
        let unknown = members.keys.filter { !knownAuthorizationClaims.contains($0) }.sorted()
        let unknownNote =
            unknown.isEmpty ? "" : "; unknown claim\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", "))"
        let present = accepted.compactMap { name in members[name].map { (name, $0) } }
        guard !present.isEmpty else {
            let has = members.keys.sorted().joined(separator: ", ")
            return RuleResult(rule, .fail, "no authorization.\(wanted)" + (has.isEmpty ? "" : " (has \(has))"))
        }
        // Every accepted member present must be well-typed: Fleet Engine reads them all.
        var found: [(claim: String, ids: [String])] = []
        for (claim, member) in present {
            switch claimIDs(member, claim: claim) {
            case .success(let ids): found.append((claim, ids))
            case .failure(let problem): return problem.result
            }
        }
        // An ID Fleet Engine cannot hold can never match a resource, whatever the backend meant.
        // In the claims' sorted order, so a token with two bad IDs is named by the same one each
        // time. The members the token has, sorted, not every known claim looked up: a token
        // usually has one, and the tap judges thousands a second.
        for (claim, member) in members.sorted(by: { $0.key < $1.key }) where knownAuthorizationClaims.contains(claim) {
            guard case .success(let ids) = claimIDs(member, claim: claim) else { continue }
            for claimed in ids where claimed != "*" {
                if let problem = FleetEngineID.problem(claimed) {
                    return RuleResult(
                        rule, .fail,
                        "authorization.\(claim) \"\(shortened(claimed))\" can never name a Fleet Engine resource: \(problem)"
                    )
                }
            }
        }
        if let wildcard = found.first(where: { $0.ids.contains("*") }) {
            let every = kind.idNoun.replacingOccurrences(of: " ID", with: "")
            return RuleResult(
                rule, .warn, "\(wildcard.claim) is \"*\": covers every \(every), too broad for a device" + unknownNote)
        }
        let matched: (claim: String, ids: [String])
        if let id {
            guard let match = found.first(where: { $0.ids.contains(id) }) else {
                let seen = found.map { claim, ids in
                    claim == "taskids"
                        ? "authorization.taskids is [\(ids.map { "\"\($0)\"" }.joined(separator: ", "))]"
                        : "authorization.\(claim) is \"\(ids.first ?? "")\""
                }
                let verb = found.count == 1 && found[0].claim == "taskids" ? ", without" : ", not"
                return RuleResult(rule, .fail, seen.joined(separator: "; ") + "\(verb) the requested \"\(id)\"")
            }
            matched = (match.claim, [id])
        } else {
            matched = found[0]
        }
        let shown = "\(matched.claim) \(matched.ids.joined(separator: ", "))"
        if !unknown.isEmpty { return RuleResult(rule, .warn, shown + unknownNote) }
        return RuleResult(rule, .ok, shown)
    }

    /// An ID as a message quotes it: long ones cut, so the reason still fits a pane line.
    private static func shortened(_ id: String) -> String {
        id.unicodeScalars.count <= 24 ? id : String(String.UnicodeScalarView(id.unicodeScalars.prefix(20))) + "…"
    }

    /// The IDs one `authorization` member names: a string, or for `taskids` an array of strings.
    private static func claimIDs(_ member: JSONValue, claim: String) -> Result<[String], ClaimProblem> {
        if claim == "taskids" {
            guard case .array(let items) = member else {
                return .failure(
                    ClaimProblem("authorization.taskids is a JSON \(member.typeName), expected an array of strings"))
            }
            let ids = items.compactMap(\.stringValue)
            guard ids.count == items.count else {
                return .failure(ClaimProblem("authorization.taskids holds a non-string, expected an array of strings"))
            }
            guard !ids.isEmpty else {
                return .failure(ClaimProblem("authorization.taskids is empty: it names no task"))
            }
            return .success(ids)
        }
        guard let id = member.stringValue else {
            return .failure(ClaimProblem("authorization.\(claim) is a JSON \(member.typeName), expected a string"))
        }
        return .success([id])
    }

    /// A failed `authorization` result carried through `Result`.
    private struct ClaimProblem: Error {
        var result: RuleResult
        init(_ reason: String) { result = RuleResult(.authorization, .fail, reason) }
    }

    // MARK: - Clock

    /// The backend's clock against ours, from its `Date` header, and its token's `iat` against
    /// its own clock. Fleet Engine judges `iat` and `exp` by Google's time, so a backend whose
    /// clock is off mints tokens that are refused everywhere.
    public static func clock(serverDate: Date, now: Date, iat: Int64?) -> RuleResult {
        clock(serverDate: serverDate, skew: now.timeIntervalSince(serverDate), iat: iat)
    }

    /// `skew`: `TokenResponseDecoder.skew`, this machine's clock less the backend's.
    public static func clock(serverDate: Date, skew: TimeInterval, iat: Int64?) -> RuleResult {
        let shown = InputBounds.wholeSeconds(abs(skew))
        let direction = skew >= 0 ? "behind" : "ahead of"
        var text =
            abs(skew) < 2
            ? "backend clock agrees with this machine's (Date header)"
            : "backend clock is \(shown) s \(direction) this machine's (Date header)"
        if let iat {
            let iatOffset = InputBounds.wholeSeconds(Double(iat) - serverDate.timeIntervalSince1970)
            text += "; iat is \(iatOffset >= 0 ? "+" : "")\(iatOffset) s from the backend's time"
        }
        if abs(skew) >= refusedSkew {
            return RuleResult(
                .clock, .warn,
                text
                    + "; one of the clocks is wrong by more than \(Int(refusedSkew)) s and Fleet Engine will refuse tokens minted by the wrong one"
            )
        }
        if abs(skew) > warnedSkew { return RuleResult(.clock, .warn, text + ": clock skew") }
        return RuleResult(.clock, .ok, text)
    }
}
