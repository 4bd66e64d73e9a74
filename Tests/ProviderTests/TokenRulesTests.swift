import Foundation
import JSONValues
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing
import TokenJudging
import TokenProviders
import TokenReading

/// Each Fleet Engine rule, both ways: a token that passes it and one that does not. The tokens
/// differ from a good one only in what the rule looks at, so each test fails if its rule goes.
@Suite(.timeLimit(.minutes(15))) struct TokenRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var t: Int { Int(now.timeIntervalSince1970) }
    static let account = "fleet-minter@my-project.iam.gserviceaccount.com"

    func judge(
        header: [String: Any?] = [:], claims: [String: Any?] = [:], kind: ProviderKind = .consumer,
        id: String? = "trip-1", providerID: String? = nil
    ) throws -> [RuleResult] {
        let token = TestJWT.make(iat: t, exp: t + 3600, account: Self.account, header: header, claims: claims)
        return TokenRules.evaluate(try JWTInspector.decode(token), kind: kind, id: id, now: now, providerID: providerID)
    }

    func result(_ rule: Rule, in results: [RuleResult]) throws -> RuleResult {
        try #require(results.first { $0.rule == rule }, "no \(rule) result in \(results)")
    }

    @Test func aGoodTokenPassesEveryRule() throws {
        let results = try judge()
        #expect(
            results.map(\.rule.name) == [
                "alg", "typ", "kid", "iss/sub", "aud", "iat", "exp", "lifetime", "authorization",
            ])
        #expect(results.allSatisfy { $0.level == .ok }, "\(results)")
        #expect(try result(.issuer, in: results).reason == "\(Self.account) (project my-project)")
    }

    @Test func alg() throws {
        #expect(
            try result(.alg, in: judge(header: ["alg": "HS256"]))
                == RuleResult(.alg, .fail, "alg is HS256, expected RS256"))
        #expect(
            try result(.alg, in: judge(header: ["alg": "none"])).reason
                == "alg is none (an unsigned token), expected RS256")
    }

    @Test func typ() throws {
        #expect(try result(.typ, in: judge(header: ["typ": nil])).level == .warn)
        #expect(
            try result(.typ, in: judge(header: ["typ": "at+jwt"]))
                == RuleResult(.typ, .fail, "typ is at+jwt, expected JWT"))
    }

    @Test func kid() throws {
        #expect(try result(.kid, in: judge()).level == .ok)
        // java-fleetengine-auth's ImpersonatedSigner and DefaultServiceAccountSigner set no kid,
        // and Fleet Engine accepts their tokens: a note, never a failure.
        #expect(try result(.kid, in: judge(header: ["kid": nil])).level == .note)
        #expect(try result(.kid, in: judge(header: ["kid": ""])).level == .note)
        #expect(try result(.kid, in: judge(header: ["kid": 7])).level == .fail)
    }

    @Test func issuerAndSubject() throws {
        #expect(try result(.issuer, in: judge(claims: ["iss": nil, "sub": nil])).level == .fail)
        #expect(try result(.issuer, in: judge(claims: ["sub": nil])) == RuleResult(.issuer, .fail, "no sub claim"))
        #expect(
            try result(.issuer, in: judge(claims: ["sub": "other@my-project.iam.gserviceaccount.com"])).level == .fail)
        let notAnAccount = try result(
            .issuer, in: judge(claims: ["iss": "backend@example.com", "sub": "backend@example.com"]))
        #expect(
            notAnAccount
                == RuleResult(
                    .issuer, .warn,
                    "backend@example.com is not a service-account email (NAME@PROJECT.iam.gserviceaccount.com)"))
    }

    @Test func providerID() throws {
        #expect(try result(.issuer, in: judge(providerID: "my-project")).level == .ok)
        #expect(
            try result(.issuer, in: judge(providerID: "their-project"))
                == RuleResult(
                    .issuer, .fail, "\(Self.account) belongs to project my-project, not --provider-id their-project"))
        #expect(TokenRules.serviceAccountProject("app@demo-1.iam.gserviceaccount.com") == "demo-1")
        #expect(TokenRules.serviceAccountProject("demo-2@appspot.gserviceaccount.com") == "demo-2")
        #expect(TokenRules.serviceAccountProject("someone@gmail.com") == nil)
    }

    /// ASCII issuers are read as bytes; the answers are the general reading's, case and edges included.
    @Test func serviceAccountProjectsFromAnyCaseAndEdge() {
        let cases: [(String, String?)] = [
            ("App@DEMO-1.IAM.GServiceAccount.com", "demo-1"),
            ("Demo-2@APPSPOT.gserviceaccount.com", "Demo-2"),
            ("@demo.iam.gserviceaccount.com", nil),
            ("a@b@demo.iam.gserviceaccount.com", nil),
            ("a@.iam.gserviceaccount.com", nil),
            ("a@x.y.iam.gserviceaccount.com", nil),
            ("a@iam.gserviceaccount.com", nil),
            ("a@demo.iam.gserviceaccount.com.evil", nil),
            ("a@appspot.gserviceaccount.com.evil", nil),
            ("no-at-sign", nil),
            ("", nil),
            // Not ASCII: the general reading, Unicode lowercasing included.
            ("a@DËMO.iam.gserviceaccount.com", "dëmo"),
            ("ä@appspot.gserviceaccount.com", "ä"),
        ]
        for (email, project) in cases {
            #expect(TokenRules.serviceAccountProject(email) == project, "\(email)")
        }
    }

    @Test func audienceIsExact() throws {
        #expect(try result(.audience, in: judge()).level == .ok)
        #expect(
            try result(.audience, in: judge(claims: ["aud": "https://fleetengine.googleapis.com"])).reason
                == "aud is https://fleetengine.googleapis.com, expected https://fleetengine.googleapis.com/ (exact match required)"
        )
        #expect(try result(.audience, in: judge(claims: ["aud": [JWTInspector.fleetEngineAudience]])).level == .fail)
        #expect(try result(.audience, in: judge(claims: ["aud": nil])).level == .fail)
    }

    @Test func timesAreIntegers() throws {
        #expect(
            try result(.issuedAt, in: judge(claims: ["iat": Double(t) + 0.5]))
                == RuleResult(.issuedAt, .fail, "iat is \(Double(t) + 0.5), not an integer"))
        #expect(
            try result(.expiry, in: judge(claims: ["exp": "\(t + 60)"]))
                == RuleResult(.expiry, .fail, "exp is a JSON string, not an integer"))
        #expect(try result(.issuedAt, in: judge(claims: ["iat": nil])) == RuleResult(.issuedAt, .fail, "no iat claim"))
    }

    @Test func iatInTheFuture() throws {
        #expect(try result(.issuedAt, in: judge(claims: ["iat": t + 30, "exp": t + 3630])).level == .ok)
        #expect(try result(.issuedAt, in: judge(claims: ["iat": t + 120, "exp": t + 3700])).level == .warn)
        // Seen: decode said "checks: ok" for a token issued 20 minutes ahead.
        #expect(
            try result(.issuedAt, in: judge(claims: ["iat": t + 1200, "exp": t + 3700]))
                == RuleResult(
                    .issuedAt, .fail,
                    "iat is 1200 s in the future; Fleet Engine refuses beyond 600 s (a clock is wrong)"))
    }

    @Test func expIsAfterNow() throws {
        #expect(try result(.expiry, in: judge(claims: ["iat": t - 100, "exp": t + 1])).level == .ok)
        #expect(
            try result(.expiry, in: judge(claims: ["iat": t - 100, "exp": t - 10]))
                == RuleResult(.expiry, .fail, "expired 10 s ago"))
        #expect(try result(.expiry, in: judge(claims: ["iat": t - 100, "exp": t])).level == .fail)
    }

    @Test func lifetime() throws {
        #expect(try result(.lifetime, in: judge(claims: ["exp": t + 3600])).level == .ok)
        #expect(try result(.lifetime, in: judge(claims: ["exp": t + 3601])).level == .fail)
        #expect(try result(.lifetime, in: judge(claims: ["exp": t + 299])).level == .warn)
        #expect(try result(.lifetime, in: judge(claims: ["exp": t + 300])).level == .ok)
        #expect(
            try result(.lifetime, in: judge(claims: ["iat": t, "exp": t - 5])).reason
                == "exp \(t - 5) is before iat \(t)")
    }

    @Test func authorization() throws {
        #expect(
            try result(.authorization, in: judge(claims: ["authorization": ["tripid": "trip-2"]]))
                == RuleResult(.authorization, .fail, "authorization.tripid is \"trip-2\", not the requested \"trip-1\"")
        )
        #expect(try result(.authorization, in: judge(claims: ["authorization": nil])).level == .fail)
        #expect(
            try result(.authorization, in: judge(claims: ["authorization": ["vehicleid": "v"]]))
                == RuleResult(.authorization, .fail, "no authorization.tripid (has vehicleid)"))
        // Any ID when none is asked for (decode without --trip-id).
        #expect(
            try result(.authorization, in: judge(claims: ["authorization": ["tripid": "trip-2"]], id: nil)).level == .ok
        )
    }

    @Test func aWildcardCoversEveryVehicle() throws {
        let claims: [String: Any?] = ["authorization": ["vehicleid": "*"]]
        #expect(
            try result(.authorization, in: judge(claims: claims, kind: .driver, id: "v-1"))
                == RuleResult(.authorization, .warn, "vehicleid is \"*\": covers every vehicle, too broad for a device")
        )
    }

    @Test func unknownAuthorizationClaimsAreListed() throws {
        let claims: [String: Any?] = ["authorization": ["tripid": "trip-1", "tripids": ["a"], "admin": true]]
        #expect(
            try result(.authorization, in: judge(claims: claims))
                == RuleResult(.authorization, .warn, "tripid trip-1; unknown claims admin, tripids"))
    }

    @Test func clock() {
        let inStep = TokenRules.clock(serverDate: now.addingTimeInterval(-1), now: now, iat: Int64(t))
        #expect(inStep.level == .ok && inStep.reason.hasPrefix("backend clock agrees"))
        #expect(
            TokenRules.clock(serverDate: now.addingTimeInterval(90), now: now, iat: nil)
                == RuleResult(.clock, .warn, "backend clock is 90 s ahead of this machine's (Date header): clock skew"))
        #expect(
            TokenRules.clock(serverDate: now.addingTimeInterval(1200), now: now, iat: nil).reason.contains(
                "Fleet Engine will refuse"))
    }

    @Test func theVerdictIsTheWorstResult() throws {
        #expect(try judge().worst == .ok)
        #expect(try judge(claims: ["exp": t + 120]).worst == .warn)
        #expect(try judge(claims: ["exp": t + 120], id: "trip-2").worst == .fail)
    }
}

@Suite(.timeLimit(.minutes(15))) struct HTTPDateTests {
    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func readsEveryFormRFC9110Allows(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test func refusesOtherText() {
        #expect(HTTPDate.parse("yesterday") == nil)
        #expect(HTTPDate.parse("") == nil)
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}

/// The same rules inside the provider: a failing rule is a failed fetch that caches nothing,
/// a warning is cached with the token and published with it.
@Suite(.timeLimit(.minutes(15))) struct ProviderRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let t = 1_800_000_000
    static let account = "fleet-minter@my-project.iam.gserviceaccount.com"

    struct Variant: Sendable, CustomTestStringConvertible {
        let name: String
        let header: [String: String?]
        let claims: [String: JSONValue?]
        let rule: Rule?
        var testDescription: String { name }
    }

    static func token(_ variant: Variant) -> String {
        TestJWT.make(iat: t, exp: t + 3600, account: account, header: variant.header, claims: variant.claims)
    }

    static let failing: [Variant] = [
        Variant(name: "alg HS256", header: ["alg": "HS256"], claims: [:], rule: .alg),
        Variant(name: "typ other", header: ["typ": "at+jwt"], claims: [:], rule: .typ),
        Variant(name: "no iss", header: [:], claims: ["iss": nil], rule: .issuer),
        Variant(
            name: "iss and sub differ", header: [:], claims: ["sub": .string("x@y.iam.gserviceaccount.com")],
            rule: .issuer),
        Variant(
            name: "aud not exact", header: [:], claims: ["aud": .string("https://fleetengine.googleapis.com")],
            rule: .audience),
        Variant(name: "iat fractional", header: [:], claims: ["iat": .double(Double(t) + 0.5)], rule: .issuedAt),
        Variant(
            name: "iat 20 min ahead", header: [:],
            claims: ["iat": .int(Int64(t + 1200)), "exp": .int(Int64(t + 3000))], rule: .issuedAt),
        Variant(name: "lifetime 2 h", header: [:], claims: ["exp": .int(Int64(t + 7200))], rule: .lifetime),
        Variant(name: "no authorization", header: [:], claims: ["authorization": nil], rule: .authorization),
        Variant(
            name: "tripid of another trip with a bad aud", header: [:],
            claims: ["authorization": .object(["tripid": .string("trip-2")]), "aud": .string("x")], rule: .authorization
        ),
    ]

    static let warning: [Variant] = [
        Variant(name: "no typ", header: ["typ": nil], claims: [:], rule: .typ),
        Variant(
            name: "issuer not a service account", header: [:],
            claims: ["iss": .string("a@example.com"), "sub": .string("a@example.com")], rule: .issuer),
        Variant(name: "iat 2 min ahead", header: [:], claims: ["iat": .int(Int64(t + 120))], rule: .issuedAt),
        Variant(name: "lifetime 2 min", header: [:], claims: ["exp": .int(Int64(t + 120))], rule: .lifetime),
        Variant(
            name: "wildcard", header: [:], claims: ["authorization": .object(["tripid": .string("*")])],
            rule: .authorization),
    ]

    func provider(serving token: String, providerID: String? = nil) -> (ConsumerTokenProvider, EventRecorder) {
        var endpoint = consumerEndpoint()
        endpoint.providerID = providerID
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let transport = FakeTransport { _ in
            TransportResponse(
                status: 200, body: Data("{\"jwt\":\"\(token)\",\"expirationTimestamp\":\((Self.t + 3600) * 1000)}".utf8)
            )
        }
        return (
            ConsumerTokenProvider(
                endpoint: endpoint, transport: transport, clock: ManualClock(Self.now), events: events), recorder
        )
    }

    @Test(arguments: failing)
    func aFailingRuleIsAFetchErrorAndNothingIsCached(_ variant: Variant) async throws {
        let (provider, recorder) = provider(serving: Self.token(variant))
        let thrown: FleetAuthError
        do {
            let served = try await provider.fetchToken(for: trip("trip-1"))
            Issue.record("\(variant.name) was served: \(served)")
            return
        } catch let error as FleetAuthError {
            thrown = error
        }
        switch thrown {
        case .rejected(let failures): #expect(failures.contains { $0.rule == variant.rule }, "\(failures)")
        case .wrongID(let claim, let expected, let found):
            #expect(variant.rule == .authorization)
            #expect(claim == "tripid" && expected == "trip-1" && found == "trip-2")
        default: Issue.record("unexpected \(thrown)")
        }
        #expect(await provider.cachedToken == nil)
        let failed = try await recorder.next(named: "fetch_failed")
        #expect(failed.failure == thrown, "the failure is published as thrown")
    }

    @Test(arguments: warning)
    func aWarningIsCachedAndPublishedWithTheToken(_ variant: Variant) async throws {
        let served = Self.token(variant)
        let (provider, recorder) = provider(serving: served)
        #expect(try await provider.fetchToken(for: trip("trip-1")) == served)
        let cached = try #require(await provider.cachedToken)
        #expect(cached.findings.first { $0.rule == variant.rule }?.level == .warn, "\(cached.findings)")
        let token = try #require(try await recorder.next(named: "fetched").token)
        #expect(token == cached)
        #expect(token.warnings.contains { $0.hasPrefix("\(variant.rule?.name ?? ""): ") })
    }

    @Test func aProviderIDThatDoesNotMatchTheIssuerIsRefused() async throws {
        let good = Self.token(Variant(name: "good", header: [:], claims: [:], rule: nil))
        let (matching, _) = provider(serving: good, providerID: "my-project")
        #expect(try await matching.fetchToken(for: trip("trip-1")) == good)
        // Accepted: a passed rule says nothing the token keeps (only warnings, notes, clock, signature).
        #expect(await matching.cachedToken?.findings.contains { $0.rule == .issuer } == false)
        let (other, _) = provider(serving: good, providerID: "their-project")
        await #expect(
            throws: FleetAuthError.rejected([
                RuleResult(
                    .issuer, .fail, "\(Self.account) belongs to project my-project, not --provider-id their-project")
            ])
        ) {
            try await other.fetchToken(for: trip("trip-1"))
        }
    }

    @Test func withoutAVerifierTheSignatureIsNotedAsNotChecked() async throws {
        let good = Self.token(Variant(name: "good", header: [:], claims: [:], rule: nil))
        let (provider, _) = provider(serving: good)
        #expect(try await provider.fetchToken(for: trip("trip-1")) == good)
        #expect(await provider.cachedToken?.signature == .signatureNotConfigured)
    }
}

/// Fleet Engine's rule for resource IDs (`GMTDFleetEngineIDString`), in the claims it reads.
@Suite(.timeLimit(.minutes(15))) struct FleetEngineIDRuleTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: ["trip 42", "café", "車両-7", String(repeating: "é", count: 64), "a;b", "*"])
    func idsFleetEngineAcceptsPass(_ id: String) {
        #expect(id == "*" || FleetEngineID.problem(id) == nil)
        let token = TestJWT.make(iat: 1_800_000_000, exp: 1_800_003_600, claims: ["authorization": ["tripid": id]])
        let results =
            (try? JWTInspector.decode(token)).map { TokenRules.evaluate($0, kind: .consumer, id: nil, now: now) } ?? []
        #expect(results.first { $0.rule == .authorization }?.level != .fail, "\(results)")
    }

    @Test func idsFleetEngineRefusesAreNamedWithTheReason() {
        #expect(FleetEngineID.problem("") == "it is empty")
        #expect(
            FleetEngineID.problem(String(repeating: "x", count: 65))
                == "it is 65 characters long; Fleet Engine IDs are at most 64")
        #expect(
            FleetEngineID.problem(String(repeating: "é", count: 65))
                == "it is 65 characters long; Fleet Engine IDs are at most 64")
        // An ASCII ID is read by its bytes, any other by its scalars: both find each character.
        for bad in FleetEngineID.forbiddenCharacters {
            for id in ["a\(bad)b", "é\(bad)b"] {
                #expect(FleetEngineID.problem(id) == "it contains '\(bad)'; Fleet Engine IDs may not contain / : ? , #")
            }
        }
        // "e" and a combining acute accent: the same text as "é", but not in NFC.
        #expect(
            FleetEngineID.problem("cafe\u{301}")
                == "it is not in Unicode normalisation form C (NFC), which Fleet Engine requires")
        // 64 characters of "é" are 128 UTF-8 bytes, and fine: the limit counts code points.
        #expect(FleetEngineID.problem(String(repeating: "é", count: 64)) == nil)
    }

    @Test func anyClaimedIDIsJudgedNotOnlyTheKindsOwn() throws {
        let token = TestJWT.make(
            kind: .driver, id: "vehicle-7", iat: 1_800_000_000, exp: 1_800_003_600,
            claims: ["authorization": ["vehicleid": "vehicle-7", "tripid": "trip:9"]])
        let results = TokenRules.evaluate(try JWTInspector.decode(token), kind: .driver, id: "vehicle-7", now: now)
        #expect(
            results.first { $0.rule == .authorization }
                == RuleResult(
                    .authorization, .fail,
                    "authorization.tripid \"trip:9\" can never name a Fleet Engine resource: it contains ':'; Fleet Engine IDs may not contain / : ? , #"
                ))
    }

    /// The embedded server's lifetime is the user's choice: a short one is a note there, and
    /// stays a warning from any other backend.
    @Test func aShortLifetimeIsANoteOnlyWhenTheUserChoseIt() throws {
        let jwt = try JWTInspector.decode(TestJWT.make(iat: 1_800_000_000, exp: 1_800_000_060))
        let chosen = TokenRules.evaluate(jwt, kind: .consumer, id: "trip-1", now: now, lifetimeChosen: true)
        #expect(
            chosen.first { $0.rule == .lifetime }
                == RuleResult(
                    .lifetime, .note,
                    "60 s, as set for the embedded server (under 300 s the SDKs fetch again at every call)"))
        let foreign = TokenRules.evaluate(jwt, kind: .consumer, id: "trip-1", now: now)
        #expect(foreign.first { $0.rule == .lifetime }?.level == .warn)
    }
}

/// The tap judges a backend's tokens through a memo of the header and issuer they share: every
/// token must get the results it gets without one, whatever came before it.
@Suite(.timeLimit(.minutes(15))) struct TokenRulesMemoTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func eachTokenGetsTheResultsItWouldGetWithoutTheMemo() throws {
        let t = Int(now.timeIntervalSince1970)
        let account = "fleet-minter@my-project.iam.gserviceaccount.com"
        func token(header: [String: Any?] = [:], account: String = account) -> String {
            TestJWT.make(iat: t, exp: t + 3600, account: account, header: header)
        }
        // Repeats, then a change of each part the memo keeps, then back; a composed and a
        // decomposed "é" are `==` as Swift strings but not the same text in a message.
        let tokens = [
            token(), token(), token(header: ["kid": "key-2"]), token(header: ["kid": "caf\u{E9}"]),
            token(header: ["kid": "cafe\u{301}"]), token(header: ["alg": "HS256"]), token(header: ["typ": nil]),
            // An object past the memo's walk, twice: judged afresh each time.
            token(header: ["kid": Dictionary(uniqueKeysWithValues: (0..<20).map { ("k\($0)", $0) })]),
            token(header: ["kid": Dictionary(uniqueKeysWithValues: (0..<20).map { ("k\($0)", $0) })]),
            token(account: "other@other-project.iam.gserviceaccount.com"),
            token(account: "caf\u{E9}@p.iam.gserviceaccount.com"),
            token(account: "cafe\u{301}@p.iam.gserviceaccount.com"),
            token(),
        ]
        let memo = TokenRules.Memo()
        for providerID in [nil, "my-project", "other-project"] {
            for text in tokens {
                let plain = try JWTInspector.decode(text)
                let memoed = try JWTInspector.decode(text, header: memo.decodedHeader)
                #expect(memoed == plain)
                #expect(memoed.header.description.utf8.elementsEqual(plain.header.description.utf8))
                let expected = TokenRules.evaluate(
                    plain, kind: .consumer, id: "trip-1", now: now, providerID: providerID)
                let got = TokenRules.evaluate(
                    memoed, kind: .consumer, id: "trip-1", now: now, providerID: providerID, memo: memo)
                #expect(got.map(\.description) == expected.map(\.description))
                #expect(zip(got, expected).allSatisfy { $0.reason.utf8.elementsEqual($1.reason.utf8) })
            }
        }
    }

    @Test func aHeaderTheMemoCannotDecodeIsRefusedAsWithoutIt() {
        let memo = TokenRules.Memo()
        #expect(throws: JWTReadingError.notAJWT("header is not base64url")) {
            try JWTInspector.decode("e+J.eyJ9.sig", header: memo.decodedHeader)
        }
    }
}
