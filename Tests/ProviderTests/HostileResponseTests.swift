import Foundation
import ProviderVocabulary
import Redaction
import TestSupport
import Testing
import TokenJudging
import TokenReading

/// Each answer of the hardening matrix (`HostileMatrix`, in TestSupport) decoded to its own sentence.
@Suite(.timeLimit(.minutes(15))) struct HostileResponseTests {
    func decode(_ response: TransportResponse) -> Result<FetchedToken, FleetAuthError> {
        let decoder = TokenResponseDecoder(endpoint: .sampleBackend(.consumer, base: "http://b"))
        return Result { () throws(FleetAuthError) in
            try decoder.decode(response, id: HostileMatrix.id, now: HostileMatrix.now)
        }
    }

    @Test(arguments: HostileMatrix.cases)
    func eachHostileAnswerHasItsOwnMessage(_ hostile: HostileCase) {
        switch decode(hostile.response) {
        case .success: Issue.record("\(hostile.name) was accepted")
        case .failure(let error):
            #expect(error.description == hostile.message)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func theMessagesAreAllDifferent() {
        let messages = HostileMatrix.cases.map(\.message)
        #expect(Set(messages).count == messages.count)
    }

    @Test func theMatrixBaselineIsAccepted() throws {
        // Guards the matrix itself: the unmodified token is good, so each case fails for its own reason.
        let token = try decode(HostileMatrix.token(HostileMatrix.jwt())).get()
        #expect(token.id == HostileMatrix.id)
    }

    @Test func retryAfterIsReadAsSecondsOrDateAndCapped() {
        let now = HostileMatrix.now
        #expect(TokenResponseDecoder.retryAfterSeconds("30", now: now) == 30)
        #expect(TokenResponseDecoder.retryAfterSeconds("Fri, 15 Jan 2027 08:00:45 GMT", now: now) == 45)
        #expect(TokenResponseDecoder.retryAfterSeconds("Fri, 15 Jan 2027 07:00:00 GMT", now: now) == 0)
        #expect(TokenResponseDecoder.retryAfterSeconds("86400", now: now) == 3600)
        #expect(TokenResponseDecoder.retryAfterSeconds("soon", now: now) == nil)
        #expect(TokenResponseDecoder.retryAfterSeconds(nil, now: now) == nil)
    }

    @Test func retryAfterCountsOnlyOn429And503() {
        let response = HostileMatrix.body("", status: 500, headers: ["Retry-After": "30"])
        #expect(throws: FleetAuthError.httpStatus(code: 500, body: "", retryAfter: nil)) {
            try TokenResponseDecoder(endpoint: .sampleBackend(.consumer, base: "http://b")).decode(
                response, id: "t", now: HostileMatrix.now)
        }
    }

    /// The inputs libFuzzer crashed (Tests/Fuzz/crashes/), and the other hostile expiry fields: the
    /// body's number is reported with its own reason, and the valid token is served until its
    /// signed exp, never refused for it and never past it.
    @Test(arguments: [
        (ExpiryMode.auto, "1e30", "is 1e+30, not an expiry: read as auto it is centuries away"),
        (.relative, "1e30", "is 1e+30, not an expiry: read as relative it is centuries away"),
        (.absolute, "-1e30", "is -1e+30, not an expiry: negative"),
        (.absolute, "-9223372036854775808", "is -9.223372036854776e+18, not an expiry: negative"),
        (.auto, "1e300", "is 1e+300, not an expiry: read as auto it is centuries away"),
        (.auto, "-5", "is -5, not an expiry: negative"),
        (.auto, "\"NaN\"", "is a string \"NaN\", not a number or an ISO-8601 time"),
    ])
    func hostileExpiryFieldsFallBackToTheSignedExp(mode: ExpiryMode, expiry: String, reason: String) throws {
        var endpoint = TokenEndpoint.sampleBackend(.consumer, base: "http://b")
        endpoint.expiryMode = mode
        let response = HostileMatrix.token(HostileMatrix.jwt(), expiry: expiry)
        let token = try TokenResponseDecoder(endpoint: endpoint).decode(
            response, id: HostileMatrix.id, now: HostileMatrix.now)
        #expect(token.expiresAt == HostileMatrix.now.addingTimeInterval(600))
        #expect(token.warnings.count == 1)
        #expect(token.warnings.first?.contains(reason) == true, "\(token.warnings)")
        #expect(token.warnings.first?.hasSuffix("using the JWT exp (600 s left)") == true, "\(token.warnings)")
    }

    @Test func hugeAndNegativeClaimTimesDoNotTrap() throws {
        // Fuzzing regression: exp - iat overflowed Int64 and trapped.
        let header = TestJWT.encode(["alg": "RS256"])
        for (iat, exp) in [(Int64.min, Int64.max), (Int64.max, Int64.min), (0, Int64.max)] {
            let claims =
                "{\"aud\":\"\(JWTInspector.fleetEngineAudience)\",\"iat\":\(iat),\"exp\":\(exp),\"authorization\":{\"tripid\":\"t\"}}"
            let jwt = try JWTInspector.decode("\(header).\(TestJWT.encode(json: claims)).sig")
            #expect(!TokenRules.evaluate(jwt, kind: .consumer, id: "t", now: Date()).failures.isEmpty)
        }
    }
}

@Suite(.timeLimit(.minutes(15))) struct ErrorRedactionTests {
    @Test func anErrorQuotingABodyRedactsTheJWTInIt() {
        let jwt = HostileMatrix.jwt(signature: "SIGNATURE-SECRET-PART-1234567890")
        let decoder = TokenResponseDecoder(endpoint: .sampleBackend(.consumer, base: "http://b"))
        let response = HostileMatrix.body("{\"error\":\"expired\",\"stale\":\"\(jwt)\"}", status: 401)
        do {
            _ = try decoder.decode(response, id: HostileMatrix.id, now: HostileMatrix.now)
            Issue.record("a 401 was accepted")
        } catch {
            #expect(!error.description.contains(jwt.prefix(40)))
            #expect(!error.description.contains("SIGNATURE-SECRET"))
            #expect(error.description.contains("\(jwt.prefix(12))…"))
        }
    }

    @Test func everyKindOfMessageIsRedacted() {
        let jwt = HostileMatrix.jwt(signature: "SIGNATURE-SECRET-PART-1234567890")
        let errors: [FleetAuthError] = [
            .other("upstream said Bearer \(jwt)"), .unreachable(url: "http://x/?t=\(jwt)", reason: "refused"),
            .notJSON("cannot parse \"\(jwt)\""), .httpStatus(code: 400, body: jwt),
        ]
        for error in errors {
            #expect(!error.description.contains("SIGNATURE-SECRET"), "\(error)")
            #expect(!error.description.contains(String(jwt.split(separator: ".")[1])))
        }
    }

    @Test func paddedAndMangledTokensAreRedactedWhole() {
        // Found by fuzzing: the run stopped at `=` or `+` and the rest, signature included, showed.
        let parts = HostileMatrix.jwt(signature: "SIGNATURE-SECRET-PART-1234567890").split(separator: ".")
        for token in [
            "\(parts[0])=.\(parts[1])==.\(parts[2])",
            "\(parts[0]).\(parts[1].prefix(10))+/\(parts[1].dropFirst(10)).\(parts[2])",
        ] {
            let shown = TokenRedactor.redactJWTs(in: "body: \(token) end")
            #expect(!shown.contains("SIGNATURE-SECRET"), "\(shown)")
            #expect(shown.hasSuffix(" end"))
        }
    }

    @Test func ordinaryTextIsLeftAlone() {
        for text in [
            "backend unreachable at http://api.example.com/token/consumer/trip-1: connection refused",
            "they.said.something honey.example.com", "key \"expirationTimestamp\" is -5",
        ] {
            #expect(TokenRedactor.redactJWTs(in: text) == text)
        }
    }
}
