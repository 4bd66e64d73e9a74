import FleetAuth
import Foundation
import Testing

/// Each Fleet Engine rule, both ways: a token that passes it and one that does not. The tokens
/// differ from a good one only in what the rule looks at, so each test fails if its rule goes.
@Suite struct TokenRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var t: Int { Int(now.timeIntervalSince1970) }
    static let account = "fleet-minter@my-project.iam.gserviceaccount.com"

    func header(_ overrides: [String: Any?] = [:]) -> [String: Any] {
        var h: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": "k1"]
        for (k, v) in overrides { h[k] = v }
        return h
    }

    func claims(_ overrides: [String: Any?] = [:]) -> [String: Any] {
        var c: [String: Any] = [
            "iss": Self.account, "sub": Self.account, "aud": JWTInspector.fleetEngineAudience,
            "iat": t, "exp": t + 3600, "authorization": ["tripid": "trip-1"],
        ]
        for (k, v) in overrides { c[k] = v }
        return c
    }

    func judge(header h: [String: Any]? = nil, claims c: [String: Any]? = nil, kind: ProviderKind = .consumer,
               id: String? = "trip-1", providerID: String? = nil) throws -> [RuleResult] {
        let token = "\(TestJWT.encode(h ?? header())).\(TestJWT.encode(c ?? claims())).c2ln"
        return TokenRules.evaluate(try JWTInspector.decode(token), kind: kind, id: id, now: now, providerID: providerID)
    }

    func result(_ rule: String, in results: [RuleResult]) throws -> RuleResult {
        try #require(results.first { $0.rule == rule }, "no \(rule) result in \(results)")
    }

    @Test func aGoodTokenPassesEveryRule() throws {
        let results = try judge()
        #expect(results.map(\.rule) == ["alg", "typ", "kid", "iss/sub", "aud", "iat", "exp", "lifetime", "authorization"])
        #expect(results.allSatisfy { $0.level == .ok }, "\(results)")
        #expect(try result("iss/sub", in: results).reason == "\(Self.account) (project my-project)")
    }

    @Test func alg() throws {
        #expect(try result("alg", in: judge(header: header(["alg": "HS256"]))) == RuleResult("alg", .fail, "alg is HS256, expected RS256"))
        #expect(try result("alg", in: judge(header: header(["alg": "none"]))).reason == "alg is none (an unsigned token), expected RS256")
    }

    @Test func typ() throws {
        #expect(try result("typ", in: judge(header: header(["typ": nil]))).level == .warn)
        #expect(try result("typ", in: judge(header: header(["typ": "at+jwt"]))) == RuleResult("typ", .fail, "typ is at+jwt, expected JWT"))
    }

    @Test func kid() throws {
        #expect(try result("kid", in: judge()).level == .ok)
        #expect(try result("kid", in: judge(header: header(["kid": nil]))).level == .fail)
    }

    @Test func issuerAndSubject() throws {
        #expect(try result("iss/sub", in: judge(claims: claims(["iss": nil, "sub": nil]))).level == .fail)
        #expect(try result("iss/sub", in: judge(claims: claims(["sub": nil]))) == RuleResult("iss/sub", .fail, "no sub claim"))
        #expect(try result("iss/sub", in: judge(claims: claims(["sub": "other@my-project.iam.gserviceaccount.com"]))).level == .fail)
        let notAnAccount = try result("iss/sub", in: judge(claims: claims(["iss": "backend@example.com", "sub": "backend@example.com"])))
        #expect(notAnAccount == RuleResult("iss/sub", .warn, "backend@example.com is not a service-account email (NAME@PROJECT.iam.gserviceaccount.com)"))
    }

    @Test func providerID() throws {
        #expect(try result("iss/sub", in: judge(providerID: "my-project")).level == .ok)
        #expect(try result("iss/sub", in: judge(providerID: "their-project"))
                == RuleResult("iss/sub", .fail, "\(Self.account) belongs to project my-project, not --provider-id their-project"))
        #expect(TokenRules.serviceAccountProject("app@demo-1.iam.gserviceaccount.com") == "demo-1")
        #expect(TokenRules.serviceAccountProject("demo-2@appspot.gserviceaccount.com") == "demo-2")
        #expect(TokenRules.serviceAccountProject("someone@gmail.com") == nil)
    }

    @Test func audienceIsExact() throws {
        #expect(try result("aud", in: judge()).level == .ok)
        #expect(try result("aud", in: judge(claims: claims(["aud": "https://fleetengine.googleapis.com"]))).reason
                == "aud is https://fleetengine.googleapis.com, expected https://fleetengine.googleapis.com/ (exact match required)")
        #expect(try result("aud", in: judge(claims: claims(["aud": [JWTInspector.fleetEngineAudience]]))).level == .fail)
        #expect(try result("aud", in: judge(claims: claims(["aud": nil]))).level == .fail)
    }

    @Test func timesAreIntegers() throws {
        #expect(try result("iat", in: judge(claims: claims(["iat": Double(t) + 0.5]))) == RuleResult("iat", .fail, "iat is \(Double(t) + 0.5), not an integer"))
        #expect(try result("exp", in: judge(claims: claims(["exp": "\(t + 60)"]))) == RuleResult("exp", .fail, "exp is a JSON string, not an integer"))
        #expect(try result("iat", in: judge(claims: claims(["iat": nil]))) == RuleResult("iat", .fail, "no iat claim"))
    }

    @Test func iatInTheFuture() throws {
        #expect(try result("iat", in: judge(claims: claims(["iat": t + 30, "exp": t + 3630]))).level == .ok)
        #expect(try result("iat", in: judge(claims: claims(["iat": t + 120, "exp": t + 3700]))).level == .warn)
        // Seen: decode said "checks: ok" for a token issued 20 minutes ahead.
        #expect(try result("iat", in: judge(claims: claims(["iat": t + 1200, "exp": t + 3700])))
                == RuleResult("iat", .fail, "iat is 1200 s in the future; Fleet Engine refuses beyond 600 s (a clock is wrong)"))
    }

    @Test func expIsAfterNow() throws {
        #expect(try result("exp", in: judge(claims: claims(["iat": t - 100, "exp": t + 1]))).level == .ok)
        #expect(try result("exp", in: judge(claims: claims(["iat": t - 100, "exp": t - 10]))) == RuleResult("exp", .fail, "expired 10 s ago"))
        #expect(try result("exp", in: judge(claims: claims(["iat": t - 100, "exp": t]))).level == .fail)
    }

    @Test func lifetime() throws {
        #expect(try result("lifetime", in: judge(claims: claims(["exp": t + 3600]))).level == .ok)
        #expect(try result("lifetime", in: judge(claims: claims(["exp": t + 3601]))).level == .fail)
        #expect(try result("lifetime", in: judge(claims: claims(["exp": t + 299]))).level == .warn)
        #expect(try result("lifetime", in: judge(claims: claims(["exp": t + 300]))).level == .ok)
        #expect(try result("lifetime", in: judge(claims: claims(["iat": t, "exp": t - 5]))).reason == "exp \(t - 5) is before iat \(t)")
    }

    @Test func authorization() throws {
        #expect(try result("authorization", in: judge(claims: claims(["authorization": ["tripid": "trip-2"]])))
                == RuleResult("authorization", .fail, "authorization.tripid is \"trip-2\", not the requested \"trip-1\""))
        #expect(try result("authorization", in: judge(claims: claims(["authorization": nil]))).level == .fail)
        #expect(try result("authorization", in: judge(claims: claims(["authorization": ["vehicleid": "v"]])))
                == RuleResult("authorization", .fail, "no authorization.tripid (has vehicleid)"))
        // Any ID when none is asked for (decode without --trip-id).
        #expect(try result("authorization", in: judge(claims: claims(["authorization": ["tripid": "trip-2"]]), id: nil)).level == .ok)
    }

    @Test func aWildcardCoversEveryVehicle() throws {
        let claims = claims(["authorization": ["vehicleid": "*"]])
        #expect(try result("authorization", in: judge(claims: claims, kind: .driver, id: "v-1"))
                == RuleResult("authorization", .warn, "vehicleid is \"*\": covers every vehicle, too broad for a device"))
    }

    @Test func unknownAuthorizationClaimsAreListed() throws {
        let claims = claims(["authorization": ["tripid": "trip-1", "tripids": ["a"], "admin": true]])
        #expect(try result("authorization", in: judge(claims: claims))
                == RuleResult("authorization", .warn, "tripid trip-1; unknown claims admin, tripids"))
    }

    @Test func clock() {
        let inStep = TokenRules.clock(serverDate: now.addingTimeInterval(-1), now: now, iat: Int64(t))
        #expect(inStep.level == .ok && inStep.reason.hasPrefix("backend clock agrees"))
        #expect(TokenRules.clock(serverDate: now.addingTimeInterval(90), now: now, iat: nil)
                == RuleResult("clock", .warn, "backend clock is 90 s ahead of this machine's (Date header): clock skew"))
        #expect(TokenRules.clock(serverDate: now.addingTimeInterval(1200), now: now, iat: nil).reason.contains("Fleet Engine will refuse"))
    }

    @Test func theVerdictIsTheWorstResult() throws {
        #expect(try judge().worst == .ok)
        #expect(try judge(claims: claims(["exp": t + 120])).worst == .warn)
        #expect(try judge(claims: claims(["exp": t + 120]), id: "trip-2").worst == .fail)
    }
}

@Suite struct HTTPDateTests {
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
