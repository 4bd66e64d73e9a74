import Foundation
import JSONValues
import ProviderVocabulary
import TestSupport
import Testing
import TokenReading

/// `tokendash decode` as a developer uses it on a token copied from their backend.
@Suite(.timeLimit(.minutes(15))) struct DecodeEndToEndTests {
    /// A well-formed 600 s token whose issuer is no Google service account, so no key set is fetched.
    static func token(trip: String, expiresIn: Int, header: [String: Any?] = [:], iat: Int? = nil) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return TestJWT.make(
            id: trip, iat: iat ?? (now + expiresIn - 600), exp: now + expiresIn, account: TestJWT.nonServiceAccount,
            header: header)
    }

    @Test func aGoodTokenPrintsEveryRule() async throws {
        let token = Self.token(trip: "trip-7", expiresIn: 300)
        let result = try await BinaryRunner.run(["decode", token])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""tripid" : "trip-7""#))
        #expect(result.stdout.contains("fingerprint: \(TokenFingerprint.of(token))\n"))
        #expect(result.stdout.contains("rules (trip token, any trip ID): Fleet Engine would accept it, with 1 warning"))
        for rule in [
            "✓ alg ", "✓ typ ", "✓ kid ", "! iss/sub ", "✓ aud ", "✓ iat ", "✓ exp ", "✓ lifetime ", "✓ authorization ",
            "· signature ",
        ] {
            #expect(result.stdout.contains("  \(rule)"), "no line for \(rule) in \(result.stdout)")
        }
        #expect(!result.stdout.contains("✗"))
    }

    @Test func aTokenForAnotherTripFails() async throws {
        let result = try await BinaryRunner.run([
            "decode", "--trip-id", "trip-8", Self.token(trip: "trip-7", expiresIn: 300),
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(#"✗ authorization  authorization.tripid is "trip-7", not the requested "trip-8""#))
        #expect(result.stderr.contains(#"authorization: authorization.tripid is "trip-7", not the requested "trip-8""#))
    }

    @Test func anExpiredTokenFailsButIsStillShown() async throws {
        let result = try await BinaryRunner.run(["decode", "-"], stdin: Self.token(trip: "trip-7", expiresIn: -30))
        #expect(result.status == 1)
        // Expired 30 s before the run, and more by the time a loaded machine starts the binary.
        let ago = result.stdout.firstMatch(of: /expired (\d+) s ago/).flatMap { Int($0.1) }
        #expect(ago.map { $0 >= 30 } == true, "\(result.stdout)")
        #expect(result.stdout.contains("Fleet Engine would refuse it: 1 rule failed"))
        #expect(!result.stdout.contains("would accept"))
        #expect(result.stderr.hasPrefix("tokendash decode: Fleet Engine would refuse this token: exp: expired "))
        #expect(result.stderr.contains(/exp: expired \d+ s ago/))
    }

    /// Seen: `checks: ok` for a token issued 20 minutes ahead. A missing kid is only a note:
    /// java-fleetengine-auth's impersonating signers mint without one and Fleet Engine accepts them.
    @Test func aFutureIatFailsAndAMissingKidIsANote() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let result = try await BinaryRunner.run([
            "decode", Self.token(trip: "trip-7", expiresIn: 2400, header: ["kid": nil], iat: now + 1200),
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("  · kid ")
                && result.stdout.contains("no kid: the signature is checked against every key"))
        #expect(
            result.stdout.contains("  ✗ iat ")
                && result.stdout.contains("s in the future; Fleet Engine refuses beyond 600 s"))
        #expect(result.stdout.contains("Fleet Engine would refuse it: 1 rule failed"))
    }

    @Test func aProviderIDThatDoesNotMatchTheIssuerFails() async throws {
        let token = TestJWT.make(id: "t", lifetime: 600, account: "minter@their-project.iam.gserviceaccount.com")
        // A key set nobody serves (port 9), so the run never depends on reaching Google's: the
        // signature line is neutral and only the issuer rule decides.
        let result = try await BinaryRunner.run([
            "decode", "--provider-id", "my-project", "--jwks", "http://127.0.0.1:9/jwks.json", token,
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "  ✗ iss/sub        minter@their-project.iam.gserviceaccount.com belongs to project their-project, not --provider-id my-project"
            ),
            "\(result.stdout)")
        #expect(
            result.stdout.contains("· signature      not checked: key set http://127.0.0.1:9/jwks.json unavailable"),
            "\(result.stdout)")
        #expect(result.stdout.contains("Fleet Engine would refuse it: 1 rule failed"), "\(result.stdout)")
    }

    /// Found after fuzzing the decoders: `decode` itself turned exp into an Int and trapped.
    @Test(arguments: ["1e300", "-1e300", "9223372036854775807", "-9223372036854775808"])
    func anAbsurdExpIsReportedNotACrash(exp: String) async throws {
        let claims =
            "{\"aud\":\"https://fleetengine.googleapis.com/\",\"iat\":1,\"exp\":\(exp),\"authorization\":{\"tripid\":\"t\"}}"
        let token = TestJWT.encode(["alg": "RS256"]) + "." + TestJWT.encode(json: claims) + ".c2ln"
        let result = try await BinaryRunner.run(["decode", token])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("expires: epoch ") && result.stdout.contains("centur"), "\(result.stdout)")
        #expect(result.stderr.hasPrefix("tokendash decode: Fleet Engine would refuse this token: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func garbageIsOneClearLine() async throws {
        let result = try await BinaryRunner.run(["decode", "not-a-token"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("token is not a JWT: expected 3 dot-separated parts, found 1"))
    }
}

/// Every rule through the binary: the line `decode` prints for it and the exit status.
@Suite(.timeLimit(.minutes(15))) struct DecodeRulesEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let header: [String: String?]
        let claims: [String: JSONValues.JSONValue?]
        let line: String
        let status: Int32
        /// Seconds from the token's making to its `exp`: the token is made as the test runs, not when
        /// the cases are listed (a run beside four CPU hogs reached a case minutes later).
        var lifetime = 600
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "alg", header: ["alg": "HS256"], claims: [:], line: "✗ alg            alg is HS256, expected RS256",
            status: 1),
        Case(
            name: "typ", header: ["typ": "jwt+at"], claims: [:], line: "✗ typ            typ is jwt+at, expected JWT",
            status: 1),
        Case(
            name: "kid", header: ["kid": nil], claims: [:],
            line: "· kid            no kid: the signature is checked against every key", status: 0),
        Case(name: "iss", header: [:], claims: ["iss": nil], line: "✗ iss/sub        no iss claim", status: 1),
        Case(
            name: "aud", header: [:], claims: ["aud": .string("https://fleetengine.googleapis.com")],
            line: "✗ aud            aud is https://fleetengine.googleapis.com, expected", status: 1),
        Case(
            name: "iat integer", header: [:], claims: ["iat": .double(1e9 + 0.5)],
            line: "✗ iat            iat is 1000000000.5, not an integer", status: 1),
        Case(
            name: "lifetime", header: [:],
            claims: [
                "iat": .int(Int64(Date().timeIntervalSince1970) - 10),
                "exp": .int(Int64(Date().timeIntervalSince1970) + 7200),
            ],
            line: "✗ lifetime       exp - iat is 7210 s, over Fleet Engine's 3600 s", status: 1),
        Case(
            name: "authorization", header: [:], claims: ["authorization": nil],
            line: "✗ authorization  no authorization claim", status: 1),
        Case(
            name: "wildcard", header: [:], claims: ["authorization": .object(["vehicleid": .string("*")])],
            line: "! authorization  vehicleid is \"*\": covers every vehicle", status: 0),
        Case(
            name: "short lifetime", header: [:], claims: [:], line: "! lifetime       ", status: 0, lifetime: 120),
    ]

    static func token(_ c: Case) -> String { TestJWT.make(lifetime: c.lifetime, header: c.header, claims: c.claims) }

    @Test(arguments: cases)
    func eachRuleHasItsLineAndStatus(_ c: Case) async throws {
        // The key set is unreachable on purpose (port 9): the signature line is neutral, so only
        // the rule under test decides the status.
        let result = try await BinaryRunner.run(["decode", "--jwks", "http://127.0.0.1:9/jwks.json", Self.token(c)])
        #expect(result.status == c.status, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("  " + c.line), "\(result.stdout)")
        #expect(
            result.stdout.contains("· signature      not checked: key set http://127.0.0.1:9/jwks.json unavailable"))
    }
}
