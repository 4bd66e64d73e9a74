import FleetAuth
import Foundation
import Testing

@Suite struct TokenResponseDecoderTests {
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

    func expectError(_ expected: FleetAuthError, _ response: TransportResponse, mode: ExpiryMode = .auto, id: String = "t1") {
        #expect(throws: expected) { try decoder(mode).decode(response, id: id, now: now) }
    }

    @Test func acceptsGoogleSampleBackendShape() throws {
        let token = try decoder().decode(TestJWT.response(jwt(), expiresAtSeconds: nowSeconds + 3600), id: "t1", now: now)
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

    @Test func autoPrefersTheJWTExpWhenTheBackendDisagrees() throws {
        // The backend claims 20 minutes, the token itself says 10: exp wins, and the user is told.
        let response = body("{\"jwt\":\"\(jwt(lifetime: 600))\",\"expirationTimestamp\":1200}")
        let token = try decoder(.auto).decode(response, id: "t1", now: now)
        #expect(token.expiresAt == now.addingTimeInterval(600))
        #expect(token.warnings == ["\"expirationTimestamp\" says 1200 s left but the JWT exp says 600 s; using exp"])
    }

    @Test func relativeModeOnAnEpochIsCaughtAsTooFar() {
        // The Objective-C sample's reading of a Swift-sample backend: 57 years from now.
        expectError(.expiryTooFar(secondsFromNow: 1_800_003_600),
                    body("{\"jwt\":\"\(jwt())\",\"expirationTimestamp\":1800003600}"), mode: .relative)
    }

    @Test func absoluteModeOnADurationIsAlreadyExpired() {
        // The Swift sample's reading of an Objective-C-sample backend: 1970.
        expectError(.alreadyExpired(expiredSecondsAgo: 1_799_996_400),
                    body("{\"jwt\":\"\(jwt())\",\"expirationTimestamp\":3600}"), mode: .absolute)
    }

    @Test func errorsAreDistinct() {
        let good = jwt()
        expectError(.httpStatus(code: 500, body: "boom"), body("boom\nmore", status: 500))
        expectError(.httpStatus(code: 404, body: ""), body("", status: 404))
        expectError(.notJSON("cannot parse \"<xml/>\""), body("<xml/>"))
        expectError(.notJSON("backend answered HTTP 200 with an empty body"), body(""))
        expectError(.notJSON("top level is a array, not an object"), body("[1]"))
        expectError(.missingKey("jwt"), body("{\"token\":\"x\"}"))
        expectError(.missingKey("expirationTimestamp"), body("{\"jwt\":\"\(good)\"}"))
        expectError(.wrongType(key: "jwt", expected: "string", found: "number 5"), body("{\"jwt\":5,\"expirationTimestamp\":1}"))
        expectError(.wrongType(key: "expirationTimestamp", expected: "number", found: "string \"soon\""),
                    body("{\"jwt\":\"\(good)\",\"expirationTimestamp\":\"soon\"}"))
        expectError(.notAJWT("expected 3 dot-separated parts, found 1"), body("{\"jwt\":\"opaque\",\"expirationTimestamp\":600}"))
        expectError(.notAJWT("payload is not base64url"), body("{\"jwt\":\"eyJhbGciOiJSUzI1NiJ9.!!!.sig\",\"expirationTimestamp\":600}"))
        expectError(.alreadyExpired(expiredSecondsAgo: 10),
                    body("{\"jwt\":\"\(TestJWT.make(kind: .consumer, id: "t1", iat: nowSeconds - 70, exp: nowSeconds - 10))\",\"expirationTimestamp\":\((nowSeconds - 10) * 1000)}"))
    }

    @Test func aTokenForAnotherIDIsRejected() {
        expectError(.wrongID(claim: "tripid", expected: "t1", found: "t2"),
                    TestJWT.response(jwt(id: "t2"), expiresAtSeconds: nowSeconds + 3600))
    }

    @Test func aWildcardTokenIsAccepted() throws {
        let token = try decoder().decode(TestJWT.response(jwt(id: "*"), expiresAtSeconds: nowSeconds + 3600), id: "t1", now: now)
        #expect(token.id == "t1")
    }

    @Test func aDriverTokenNeedsAVehicleClaim() {
        // A trip token handed to the driver provider carries no authorization.vehicleid.
        let response = TestJWT.response(jwt(kind: .consumer), expiresAtSeconds: nowSeconds + 3600)
        #expect(throws: FleetAuthError.badShape([.missingAuthorization("vehicleid")])) {
            try decoder(kind: .driver).decode(response, id: "t1", now: now)
        }
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
            .expiryTooFar(secondsFromNow: 7200), .notAJWT("x"), .wrongID(claim: "tripid", expected: "a", found: "b"),
            .badShape([.audience("x"), .lifetime(7200)]), .superseded(requested: "a", current: "b"),
            .backingOff(retryInSeconds: 4, lastError: "x"), .cancelled,
        ]
        for e in errors { #expect(!e.description.isEmpty && !e.description.contains("\n")) }
        #expect(FleetAuthError.missingAuthorizationContext(.driver).description == "no authorization context: the SDK asked for a token without a vehicle ID")
        #expect(Set(errors.map(\.description)).count == errors.count)
    }
}

@Suite struct JWTInspectorTests {
    @Test func checksTheFleetEngineShape() throws {
        let good = try JWTInspector.decode(TestJWT.make(kind: .driver, id: "v1", iat: 100, exp: 3700))
        #expect(JWTInspector.check(good, kind: .driver, id: "v1").isEmpty)
        let bad = try JWTInspector.decode(TestJWT.make(kind: .driver, id: "v2", iat: 100, exp: 7300, aud: "https://example.com/", alg: "HS256"))
        #expect(JWTInspector.check(bad, kind: .driver, id: "v1") == [
            .algorithm("HS256"), .audience("https://example.com/"), .lifetime(7200),
            .wrongID(claim: "vehicleid", expected: "v1", found: "v2"),
        ])
    }

    @Test func fractionalTimesAreNotIntegers() throws {
        let header = TestJWT.encode(["alg": "RS256"])
        let claims = TestJWT.encode(["aud": JWTInspector.fleetEngineAudience, "iat": 1.5, "exp": 100, "authorization": ["tripid": "t"]])
        let jwt = try JWTInspector.decode("\(header).\(claims).sig")
        #expect(JWTInspector.check(jwt, kind: .consumer, id: "t") == [.notInteger("iat")])
    }

    @Test func rejectsWhatIsNotAJWT() {
        #expect(throws: FleetAuthError.notAJWT("expected 3 dot-separated parts, found 2")) { try JWTInspector.decode("a.b") }
        let header = TestJWT.encode(["alg": "RS256"]), claims = TestJWT.encode(["aud": "x"])
        #expect(throws: FleetAuthError.notAJWT("empty signature")) { try JWTInspector.decode("\(header).\(claims).") }
        #expect(throws: FleetAuthError.notAJWT("signature is not base64url")) { try JWTInspector.decode("\(header).\(claims).sig+/ne") }
        #expect(throws: Never.self) { try JWTInspector.decode("\(header).\(claims).c2ln==") }
        #expect(throws: FleetAuthError.notAJWT("header is not JSON")) { try JWTInspector.decode("aGVsbG8.b.c") }
        #expect(throws: FleetAuthError.notAJWT("header is not a JSON object")) { try JWTInspector.decode("WzFd.b.c") }
    }
}

@Suite struct TokenEndpointTests {
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

@Suite struct TokenRedactorTests {
    @Test func keepsOnlyHeaderPrefixAndSignatureSuffix() {
        let token = TestJWT.make(kind: .consumer, id: "secret-trip", iat: 1, exp: 2, signature: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAsigEND")
        let shown = TokenRedactor.redact(token)
        #expect(shown == "\(token.prefix(12))…sigEND")
        #expect(!shown.contains("secret"))
        #expect(TokenRedactor.redact("opaque-session-token") == "‹hidden, 20 chars›")
    }
}
