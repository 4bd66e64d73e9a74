import Foundation
import ProviderVocabulary
import Redaction
import TestSupport
import Testing
import TokenJudging
import TokenReading

@Suite(.timeLimit(.minutes(15))) struct TokenResponseDecoderTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var nowSeconds: Int { Int(now.timeIntervalSince1970) }

    func decoder(_ mode: ExpiryMode = .auto, kind: ProviderKind = .consumer) -> TokenResponseDecoder {
        var endpoint = TokenEndpoint.sampleBackend(kind, base: "http://b")
        endpoint.expiryMode = mode
        return TokenResponseDecoder(endpoint: endpoint)
    }

    func jwt(id: String = "t1", lifetime: Int = 3600, kind: ProviderKind = .consumer) -> String {
        TestJWT.make(kind: kind, id: id, iat: nowSeconds, exp: nowSeconds + lifetime)
    }

    func body(_ json: String, status: Int = 200) -> TransportResponse {
        TransportResponse(status: status, body: Data(json.utf8))
    }

    func expectError(
        _ expected: FleetAuthError, _ response: TransportResponse, mode: ExpiryMode = .auto, id: String = "t1"
    ) {
        #expect(throws: expected) { try decoder(mode).decode(response, id: id, now: now) }
    }

    @Test func acceptsGoogleSampleBackendShape() throws {
        let token = try decoder().decode(
            TestJWT.response(jwt(), expiresAtSeconds: nowSeconds + 3600), id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(3600))
        #expect(token.warnings.isEmpty)
        #expect(token.jwt.claims["authorization"]?["tripid"] == .string("t1"))
    }

    @Test(arguments: [
        (ExpiryMode.absolute, 1_800_000_600.0),
        (.absoluteMilliseconds, 1_800_000_600_000.0),
        (.relative, 600.0),
        (.auto, 1_800_000_600.0),
        (.auto, 1_800_000_600_000.0),
        (.auto, 600.0),
    ])
    func readsEachExpiryMode(mode: ExpiryMode, raw: Double) throws {
        let response = body("{\"jwt\":\"\(jwt(lifetime: 600))\",\"expirationTimestamp\":\(raw)}")
        let token = try decoder(mode).decode(response, id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(600))
        #expect(token.warnings.isEmpty)
    }

    @Test(arguments: [ExpiryMode.auto, .absolute, .relative])
    func theSignedExpWinsOverALaterBodyExpiry(mode: ExpiryMode) throws {
        // The backend says 30 minutes for a 3 s token: it is served for 3 s, and the user is told.
        let raw = mode == .absolute ? nowSeconds + 1800 : 1800
        let response = body("{\"jwt\":\"\(jwt(lifetime: 3))\",\"expirationTimestamp\":\(raw)}")
        let token = try decoder(mode).decode(response, id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(3))
        let reading = mode == .auto ? "" : " read as \(mode.rawValue)"
        #expect(
            token.warnings.contains(
                "expiry field: \"expirationTimestamp\"\(reading) says 1800 s left but the JWT exp says 3 s; using exp"))
    }

    @Test(arguments: [ExpiryMode.auto, .absolute, .relative])
    func anEarlierBodyExpiryIsObeyedAndReported(mode: ExpiryMode) throws {
        // The backend knows better (it revokes at 10 minutes): the earlier time wins.
        let raw = mode == .absolute ? nowSeconds + 600 : 600
        let response = body("{\"jwt\":\"\(jwt(lifetime: 3600))\",\"expirationTimestamp\":\(raw)}")
        let token = try decoder(mode).decode(response, id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(600))
        #expect(token.warnings.count == 1)
        #expect(token.warnings.first?.contains("before the JWT exp (3600 s); using the earlier") == true)
    }

    @Test func aValidHourTokenWhoseBodySaysNinetyMinutesIsAccepted() throws {
        // Seen: refused with "expires in 5399 s, more than 3600 s".
        let response = body(
            "{\"jwt\":\"\(jwt(lifetime: 3600))\",\"expirationTimestamp\":\((nowSeconds + 5400) * 1000)}")
        let token = try decoder(.absoluteMilliseconds).decode(response, id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(3600))
        #expect(
            token.warnings == [
                "expiry field: \"expirationTimestamp\" read as absolute-ms says 5400 s left, beyond Fleet Engine's 3600 s; the JWT exp says 3600 s, using exp (check --expiry)"
            ])
    }

    @Test func relativeModeOnAnEpochFallsBackToExp() throws {
        // The Objective-C sample's reading of a Swift-sample backend: 57 years from now.
        let token = try decoder(.relative).decode(
            body("{\"jwt\":\"\(jwt())\",\"expirationTimestamp\":1800003600}"), id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(3600))
        #expect(token.warnings.first?.contains("read as relative says 1800003600 s left, beyond") == true)
    }

    @Test func absoluteModeOnADurationFallsBackToExp() throws {
        // The Swift sample's reading of an Objective-C-sample backend: 1970.
        let token = try decoder(.absolute).decode(
            body("{\"jwt\":\"\(jwt())\",\"expirationTimestamp\":3600}"), id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(3600))
        #expect(token.warnings.first?.contains("in the past; the JWT exp says 3600 s, using exp") == true)
    }

    @Test func jwtModeReadsOnlyExp() throws {
        let token = try decoder(.jwt).decode(
            body("{\"jwt\":\"\(jwt(lifetime: 900))\",\"expirationTimestamp\":\"soon\"}"), id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(900))
        #expect(token.warnings.isEmpty && token.notes.isEmpty)
    }

    @Test func autoWithoutAnExpiryKeyUsesExpWithANote() throws {
        let token = try decoder(.auto).decode(body("{\"jwt\":\"\(jwt(lifetime: 900))\"}"), id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(900))
        #expect(token.notes == ["expiry field: no expiry key in the response; using the JWT exp (900 s left)"])
        #expect(token.shape == "token only {jwt}, expiry from exp")
        #expect(token.warnings.isEmpty)
    }

    @Test func anExpiryThatIsNotANumberIsReportedNotFatal() throws {
        let token = try decoder(.auto).decode(
            body("{\"jwt\":\"\(jwt())\",\"expirationTimestamp\":\"soon\"}"), id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(3600))
        #expect(
            token.warnings == [
                "expiry field: \"expirationTimestamp\" is a string \"soon\", not a number or an ISO-8601 time; using the JWT exp (3600 s left)"
            ])
    }

    @Test func errorsAreDistinct() {
        let good = jwt()
        expectError(.httpStatus(code: 500, body: "boom"), body("boom\nmore", status: 500))
        expectError(.httpStatus(code: 404, body: ""), body("", status: 404))
        expectError(.notJSON("cannot parse \"<xml/>\""), body("<xml/>"))
        expectError(.notJSON("backend answered HTTP 200 with an empty body"), body(""))
        expectError(.notJSON("top level is a array, not an object"), body("[1]"))
        expectError(
            .missingKey("jwt\" or \"token\" or \"access_token", present: ["data"], flag: "--token-key"),
            body("{\"data\":\"x\"}"))
        expectError(
            .missingKey(
                "expirationTimestamp\" or \"expiration_timestamp_ms\" or \"expires_in", present: ["jwt"],
                flag: "--expiry-key (or --expiry jwt)"),
            body("{\"jwt\":\"\(good)\"}"), mode: .absolute)
        expectError(
            .wrongType(key: "jwt", expected: "string", found: "number 5"), body("{\"jwt\":5,\"expirationTimestamp\":1}")
        )
        expectError(
            .notAJWT("expected 3 dot-separated parts, found 1"),
            body("{\"jwt\":\"opaque\",\"expirationTimestamp\":600}"))
        expectError(
            .notAJWT("payload is not base64url"),
            body("{\"jwt\":\"eyJhbGciOiJSUzI1NiJ9.!!!.sig\",\"expirationTimestamp\":600}"))
        expectError(
            .alreadyExpired(expiredSecondsAgo: 10),
            body(
                "{\"jwt\":\"\(TestJWT.make(kind: .consumer, id: "t1", iat: nowSeconds - 70, exp: nowSeconds - 10))\",\"expirationTimestamp\":\((nowSeconds - 10) * 1000)}"
            ))
    }

    @Test func aTokenForAnotherIDIsRejected() {
        expectError(
            .wrongID(claim: "tripid", expected: "t1", found: "t2"),
            TestJWT.response(jwt(id: "t2"), expiresAtSeconds: nowSeconds + 3600))
    }

    @Test func aWildcardTokenIsAcceptedWithAWarning() throws {
        let token = try decoder().decode(
            TestJWT.response(jwt(id: "*"), expiresAtSeconds: nowSeconds + 3600), id: "t1", now: now)
        #expect(token.id == "t1")
        #expect(token.warnings == ["authorization: tripid is \"*\": covers every trip, too broad for a device"])
    }

    @Test func aDriverTokenNeedsAVehicleClaim() {
        // A trip token handed to the driver provider carries no authorization.vehicleid.
        let response = TestJWT.response(jwt(kind: .consumer), expiresAtSeconds: nowSeconds + 3600)
        #expect(
            throws: FleetAuthError.rejected([
                RuleResult(.authorization, .fail, "no authorization.vehicleid (has tripid)")
            ])
        ) {
            try decoder(kind: .driver).decode(response, id: "t1", now: now)
        }
    }

    @Test func everyFailingRuleIsAFetchErrorNamingIt() {
        let bad = TestJWT.make(
            id: "t1", iat: nowSeconds, exp: nowSeconds + 7200,
            header: ["alg": "HS256"], claims: ["aud": "https://example.com/"])
        #expect(
            throws: FleetAuthError.rejected([
                RuleResult(.alg, .fail, "alg is HS256, expected RS256"),
                RuleResult(
                    .audience, .fail, "aud is https://example.com/, expected https://fleetengine.googleapis.com/"),
                RuleResult(.lifetime, .fail, "exp - iat is 7200 s, over Fleet Engine's 3600 s"),
            ])
        ) { try decoder().decode(TestJWT.response(bad, expiresAtSeconds: nowSeconds + 3600), id: "t1", now: now) }
    }

    @Test func aDateHeaderTwentyMinutesOffIsReported() throws {
        // The backend's clock runs 20 minutes ahead, and so do the tokens it mints.
        let ahead = now.addingTimeInterval(1200)
        let future = TestJWT.make(kind: .consumer, id: "t1", iat: nowSeconds + 1200, exp: nowSeconds + 4800)
        var response = TestJWT.response(future, expiresAtSeconds: nowSeconds + 4800)
        response = TransportResponse(status: 200, body: response.body, headers: ["Date": HTTPDate.format(ahead)])
        #expect(
            throws: FleetAuthError.rejected([
                RuleResult(
                    .issuedAt, .fail,
                    "iat is 1200 s in the future; Fleet Engine refuses beyond 600 s (a clock is wrong)"),
                // The likely cause travels with the failure.
                RuleResult(
                    .clock, .warn,
                    "backend clock is 1200 s ahead of this machine's (Date header); iat is +0 s from the backend's time; "
                        + "one of the clocks is wrong by more than 600 s and Fleet Engine will refuse tokens minted by the wrong one"
                ),
            ])
        ) {
            try decoder().decode(response, id: "t1", now: now)
        }
        // Its own clock in step with ours, the backend's tokens pass, and the skew is measured.
        let inStep = TransportResponse(
            status: 200, body: TestJWT.response(jwt(), expiresAtSeconds: nowSeconds + 3600).body,
            headers: ["Date": HTTPDate.format(now.addingTimeInterval(-1200))])
        let token = try decoder().decode(inStep, id: "t1", now: now)
        #expect(token.clockSkew == 1200)
        let clock = try #require(token.findings.first { $0.rule == .clock })
        #expect(clock.level == .warn)
        #expect(
            clock.reason.hasPrefix(
                "backend clock is 1200 s behind this machine's (Date header); iat is +1200 s from the backend's time; one of the clocks is wrong by more than 600 s"
            ))
    }

    /// The backend wrote its Date header while the request was out: a slow answer from a backend
    /// in step is no skew, and a skewed backend's skew is not inflated by the wait.
    @Test func aSlowAnswerIsNotReadAsClockSkew() throws {
        let sent = now.addingTimeInterval(-3)
        let inStep = TransportResponse(
            status: 200, body: TestJWT.response(jwt(), expiresAtSeconds: nowSeconds + 3600).body,
            headers: ["Date": HTTPDate.format(sent.addingTimeInterval(1))])
        let token = try decoder().decode(inStep, id: "t1", now: now, sentAt: sent)
        #expect(token.clockSkew == 0)
        #expect(
            token.findings.first { $0.rule == .clock }?.reason
                == "backend clock agrees with this machine's (Date header); iat is +2 s from the backend's time")
        // Without the request's start, the 3 s wait reads as the backend 2 s behind.
        #expect(try decoder().decode(inStep, id: "t1", now: now).clockSkew == 2)
        #expect(TokenResponseDecoder.skew(date: sent - 30, sent: sent, received: now) == 30)
        #expect(TokenResponseDecoder.skew(date: now + 1200, sent: sent, received: now) == -1200)
    }

    @Test func aTokenGetsAFingerprintOfItsSHA256() throws {
        let token = try decoder().decode(
            TestJWT.response(jwt(), expiresAtSeconds: nowSeconds + 3600), id: "t1", now: now)
        #expect(token.fingerprint.count == 8 && token.fingerprint.allSatisfy(\.isHexDigit))
        // SHA-256("abc") begins ba7816bf: the known answer, so it is that hash and not another.
        #expect(TokenFingerprint.of("abc") == "ba7816bf")
    }

    @Test func customKeysAreRead() throws {
        var endpoint = TokenEndpoint.sampleBackend(.driver, base: "http://b")
        endpoint.tokenKey = "VEHICLE_TOKEN_KEY"
        endpoint.expiryKey = "TOKEN_EXPIRATION"
        let response = body("{\"VEHICLE_TOKEN_KEY\":\"\(jwt(id: "v", kind: .driver))\",\"TOKEN_EXPIRATION\":3600}")
        let token = try TokenResponseDecoder(endpoint: endpoint).decode(response, id: "v", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(3600))
    }

    @Test func oversizedBodiesAreRefused() {
        let big = TransportResponse(status: 200, body: Data(repeating: 0x20, count: 64 * 1024 + 1))
        expectError(.bodyTooLarge(limit: 64 * 1024), big)
    }

    @Test func errorMessagesAreOneLine() {
        let errors: [FleetAuthError] = [
            .missingAuthorizationContext(.driver), .unreachable(url: "http://x", reason: "connection refused"),
            .timeout(seconds: 10), .httpStatus(code: 500, body: "x"), .bodyTooLarge(limit: 65536), .notJSON("x"),
            .missingKey("jwt"), .wrongType(key: "a", expected: "b", found: "c"), .alreadyExpired(expiredSecondsAgo: 3),
            .notAJWT("x"), .wrongID(claim: "tripid", expected: "a", found: "b"),
            .rejected([RuleResult(.audience, .fail, "x"), RuleResult(.lifetime, .fail, "y")]),
            .superseded(requested: "a", current: "b"),
            .backingOff(retryInSeconds: 4, lastError: "x"), .cancelled,
        ]
        for e in errors { #expect(!e.description.isEmpty && !e.description.contains("\n")) }
        #expect(
            FleetAuthError.missingAuthorizationContext(.driver).description
                == "no authorization context: the SDK asked for a token without a vehicle ID")
        #expect(Set(errors.map(\.description)).count == errors.count)
    }
}

@Suite(.timeLimit(.minutes(15))) struct JWTInspectorTests {
    /// A token is split at its dots eight bytes at a time: a dot, or a byte past ASCII, at every
    /// place of a real token is still found there.
    @Test func aDotOrAByteNotASCIIIsFoundAtEveryPlaceOfAToken() throws {
        let token = TestJWT.make(kind: .consumer, id: "trip-1", iat: TestTime.seconds, exp: TestTime.seconds + 3600)
        let whole = try JWTInspector.decode(token)
        for place in 0...token.utf8.count {
            let dotted = String(token.prefix(place)) + "." + String(token.dropFirst(place))
            #expect(throws: JWTReadingError.notAJWT("expected 3 dot-separated parts, found 4")) {
                try JWTInspector.decode(dotted)
            }
            // Not ASCII, the token is split by its Characters instead: the same parts, so the
            // signature with an é in it is refused, and the other parts fail to decode.
            let accented = String(token.prefix(place)) + "é" + String(token.dropFirst(place))
            #expect(throws: JWTReadingError.self) { try JWTInspector.decode(accented) }
        }
        #expect(whole.claims["authorization"]?["tripid"] == .string("trip-1"))
    }

    @Test func rejectsWhatIsNotAJWT() {
        #expect(throws: JWTReadingError.notAJWT("expected 3 dot-separated parts, found 2")) {
            try JWTInspector.decode("a.b")
        }
        let header = TestJWT.encode(["alg": "RS256"])
        let claims = TestJWT.encode(["aud": "x"])
        #expect(throws: JWTReadingError.notAJWT("empty signature")) { try JWTInspector.decode("\(header).\(claims).") }
        #expect(throws: JWTReadingError.notAJWT("signature is not base64url")) {
            try JWTInspector.decode("\(header).\(claims).sig+/ne")
        }
        #expect(throws: Never.self) { try JWTInspector.decode("\(header).\(claims).c2ln==") }
        #expect(throws: JWTReadingError.notAJWT("header is not JSON")) { try JWTInspector.decode("aGVsbG8.b.c") }
        #expect(throws: JWTReadingError.notAJWT("header is not a JSON object")) { try JWTInspector.decode("WzFd.b.c") }
    }
}

@Suite(.timeLimit(.minutes(15))) struct TokenEndpointTests {
    @Test func fillsThePlaceholder() throws {
        let e = TokenEndpoint(kind: .consumer, urlTemplate: "https://api.example.com/v1/trips/{tripId}/token")
        #expect(try e.url(for: "trip 1").absoluteString == "https://api.example.com/v1/trips/trip%201/token")
    }

    @Test func addsAQueryItemWithoutAPlaceholder() throws {
        let e = TokenEndpoint(kind: .driver, urlTemplate: "https://api.example.com/token?app=demo")
        #expect(try e.url(for: "v&1").absoluteString == "https://api.example.com/token?app=demo&vehicleId=v%261")
    }

    @Test func parsesHeaderFlags() {
        #expect(HTTPHeader(parsing: "Cookie: session=abc:def") == HTTPHeader(name: "Cookie", value: "session=abc:def"))
        #expect(HTTPHeader(parsing: "no colon") == nil)
        #expect(HTTPHeader(parsing: ": empty") == nil)
    }
}

@Suite(.timeLimit(.minutes(15))) struct TokenRedactorTests {
    @Test func keepsOnlyHeaderPrefixAndSignatureSuffix() {
        let token = TestJWT.make(
            kind: .consumer, id: "secret-trip", iat: 1, exp: 2, signature: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAsigEND")
        let shown = TokenRedactor.redact(token)
        #expect(shown == "\(token.prefix(12))…sigEND")
        #expect(!shown.contains("secret"))
        #expect(TokenRedactor.redact("opaque-session-token") == "‹hidden, 20 chars›")
    }
}

/// The shapes token backends commonly answer in, recognised without --token-key / --expiry-key,
/// and said by name so a user knows what was read.
@Suite(.timeLimit(.minutes(15))) struct ResponseShapeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var t: Int { Int(now.timeIntervalSince1970) }
    var jwt: String { TestJWT.make(kind: .consumer, id: "t1", iat: t, exp: t + 900) }

    func decode(
        _ body: String, tokenKey: String? = nil, expiryKey: String? = nil, mode: ExpiryMode = .auto,
        headers: [String: String] = [:]
    ) throws -> FetchedToken {
        var endpoint = TokenEndpoint.sampleBackend(.consumer, base: "http://b")
        endpoint.tokenKey = tokenKey
        endpoint.expiryKey = expiryKey
        endpoint.expiryMode = mode
        return try TokenResponseDecoder(endpoint: endpoint).decode(
            TransportResponse(status: 200, body: Data(body.utf8), headers: headers), id: "t1", now: now)
    }

    @Test func googlesOnDemandSample() throws {
        let token = try decode(
            "{\"jwt\":\"\(jwt)\",\"creationTimestamp\":\(t * 1000),\"expirationTimestamp\":\((t + 600) * 1000)}")
        #expect(token.shape == "on-demand sample {jwt, expirationTimestamp}")
        #expect(token.expiresAt == now.addingTimeInterval(600), "the earlier expiry, the body's, is used")
    }

    @Test func googlesLastMileSample() throws {
        let token = try decode(
            "{\"token\":\"\(jwt)\",\"creation_timestamp_ms\":\(t * 1000),\"expiration_timestamp_ms\":\((t + 600) * 1000)}"
        )
        #expect(token.shape == "last-mile sample {token, expiration_timestamp_ms}")
        #expect(token.expiresAt == now.addingTimeInterval(600))
    }

    @Test(arguments: ["access_token", "token"])
    func expiresInIsRelativeSeconds(key: String) throws {
        // 900 would be 1970 as an epoch; expires_in is always a duration.
        let token = try decode("{\"\(key)\":\"\(jwt)\",\"expires_in\":900,\"token_type\":\"Bearer\"}")
        #expect(token.shape == "{\(key), expires_in s}")
        #expect(token.expiresAt == now.addingTimeInterval(900))
        #expect(token.warnings.isEmpty)
    }

    @Test func aBareJWTBody() throws {
        let token = try decode(jwt + "\n", headers: ["Content-Type": "text/plain"])
        #expect(token.shape == "a bare JWT (text body), expiry from exp")
        #expect(token.expiresAt == now.addingTimeInterval(900))
        #expect(token.token == jwt)
    }

    @Test func aTokenOnlyBodyUsesExp() throws {
        let token = try decode("{\"token\":\"\(jwt)\"}")
        #expect(token.shape == "token only {token}, expiry from exp")
        #expect(token.expiresAt == now.addingTimeInterval(900))
    }

    @Test func dottedKeyPaths() throws {
        let token = try decode(
            "{\"data\":{\"token\":\"\(jwt)\",\"expiry\":{\"ms\":\((t + 300) * 1000)}}}", tokenKey: "data.token",
            expiryKey: "data.expiry.ms")
        #expect(token.expiresAt == now.addingTimeInterval(300))
        #expect(token.shape == "{data.token, data.expiry.ms} as configured")
        #expect(throws: FleetAuthError.missingKey("data.tok", present: ["data"], flag: "--token-key")) {
            try decode("{\"data\":{\"token\":\"\(jwt)\"}}", tokenKey: "data.tok")
        }
    }

    @Test func anExpiryAsISO8601OrANumericString() throws {
        let iso = ISO8601DateFormatter().string(from: now.addingTimeInterval(300))
        #expect(
            try decode("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\"\(iso)\"}").expiresAt
                == now.addingTimeInterval(300))
        // protobuf's JSON form of an int64.
        #expect(
            try decode("{\"jwt\":\"\(jwt)\",\"expirationTimestamp\":\"\((t + 300) * 1000)\"}").expiresAt
                == now.addingTimeInterval(300))
    }

    @Test func aBearerPrefixIsStrippedWithANote() throws {
        let token = try decode("{\"access_token\":\"Bearer \(jwt)\",\"expires_in\":900}")
        #expect(token.token == jwt)
        #expect(token.findings.contains(RuleResult(.tokenField, .note, "stripped a \"Bearer \" prefix")))
    }

    @Test func aMissingKeyListsThePresentKeysAndTheFlag() {
        #expect(
            throws: FleetAuthError.missingKey(
                "jwt\" or \"token\" or \"access_token", present: ["expires", "id_token"], flag: "--token-key")
        ) {
            try decode("{\"id_token\":\"\(jwt)\",\"expires\":1}")
        }
        let message = FleetAuthError.missingKey("jwt", present: ["a", "b"], flag: "--token-key").description
        #expect(message == "response has no \"jwt\" key (it has \"a\", \"b\"); set --token-key")
    }
}

extension ResponseShapeTests {
    /// "Bearer " in any case is the prefix stripped; a look-alike is left, and the token then
    /// fails as what it is.
    @Test func theBearerPrefixIsReadInAnyCaseAndNothingElse() throws {
        for prefix in ["bearer ", "BEARER ", "bEaReR "] {
            let token = try decode("{\"access_token\":\"\(prefix)\(jwt)\",\"expires_in\":900}")
            #expect(token.token == jwt, "\(prefix)")
        }
        for prefix in ["Bearer\\u0000", "Bearer\\t", "Bearer"] {
            #expect(throws: FleetAuthError.self, "\(prefix)") {
                _ = try decode("{\"access_token\":\"\(prefix)\(jwt)\",\"expires_in\":900}")
            }
        }
    }
}
