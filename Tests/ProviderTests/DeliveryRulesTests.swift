import Foundation
import ProviderVocabulary
import TestSupport
import Testing
import TokenJudging
import TokenProviders
import TokenReading

/// The last-mile kinds: their `authorization` rule both ways, the sample backend's routes and
/// answer shape, and one generic provider serving them. Each test fails if its kind's data goes.
@Suite(.timeLimit(.minutes(15))) struct DeliveryRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var t: Int { Int(now.timeIntervalSince1970) }
    static let account = "fleet-minter@my-project.iam.gserviceaccount.com"

    func authorization(_ members: Any?, kind: ProviderKind, id: String?) throws -> RuleResult {
        let token = TestJWT.make(iat: t, exp: t + 3600, account: Self.account, claims: ["authorization": members])
        let results = TokenRules.evaluate(try JWTInspector.decode(token), kind: kind, id: id, now: now)
        #expect(results.filter { $0.rule != .authorization }.allSatisfy { $0.level == .ok }, "\(results)")
        return try #require(results.first { $0.rule == .authorization })
    }

    // MARK: - Delivery driver

    @Test func deliveryDriverTokenNamesItsDeliveryVehicle() throws {
        #expect(
            try authorization(["deliveryvehicleid": "dv-1"], kind: .deliveryDriver, id: "dv-1")
                == RuleResult(.authorization, .ok, "deliveryvehicleid dv-1"))
        #expect(
            try authorization(["deliveryvehicleid": "dv-2"], kind: .deliveryDriver, id: "dv-1")
                == RuleResult(
                    .authorization, .fail, "authorization.deliveryvehicleid is \"dv-2\", not the requested \"dv-1\""))
    }

    @Test func anOnDemandVehicleTokenIsNoDeliveryVehicleToken() throws {
        // vehicleid and deliveryvehicleid are different claims: Fleet Engine refuses one for the other.
        #expect(
            try authorization(["vehicleid": "dv-1"], kind: .deliveryDriver, id: "dv-1")
                == RuleResult(.authorization, .fail, "no authorization.deliveryvehicleid (has vehicleid)"))
        #expect(
            try authorization(["deliveryvehicleid": "v-1"], kind: .driver, id: "v-1")
                == RuleResult(.authorization, .fail, "no authorization.vehicleid (has deliveryvehicleid)"))
    }

    @Test func aDeliveryVehicleWildcardIsWarned() throws {
        #expect(
            try authorization(["deliveryvehicleid": "*"], kind: .deliveryDriver, id: "dv-1")
                == RuleResult(
                    .authorization, .warn,
                    "deliveryvehicleid is \"*\": covers every delivery vehicle, too broad for a device"))
    }

    // MARK: - Delivery consumer

    @Test func deliveryConsumerTokenByTrackingID() throws {
        #expect(
            try authorization(["trackingid": "track-1"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(.authorization, .ok, "trackingid track-1"))
        #expect(
            try authorization(["trackingid": "track-2"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(
                    .authorization, .fail, "authorization.trackingid is \"track-2\", not the requested \"track-1\""))
    }

    @Test func deliveryConsumerTokenByTaskID() throws {
        #expect(
            try authorization(["taskid": "track-1"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(.authorization, .ok, "taskid track-1"))
        #expect(
            try authorization(["taskid": "task-9"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(
                    .authorization, .fail, "authorization.taskid is \"task-9\", not the requested \"track-1\""))
    }

    @Test func deliveryConsumerTokenByTaskIDs() throws {
        #expect(
            try authorization(["taskids": ["task-1", "track-1"]], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(.authorization, .ok, "taskids track-1"))
        #expect(
            try authorization(["taskids": ["task-1", "task-2"]], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(
                    .authorization, .fail,
                    "authorization.taskids is [\"task-1\", \"task-2\"], without the requested \"track-1\""))
        #expect(
            try authorization(["taskids": "track-1"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(
                    .authorization, .fail, "authorization.taskids is a JSON string, expected an array of strings"))
        #expect(try authorization(["taskids": ["track-1", 7]], kind: .deliveryConsumer, id: "track-1").level == .fail)
        #expect(try authorization(["taskids": [String]()], kind: .deliveryConsumer, id: nil).level == .fail)
    }

    @Test func anyAcceptedMemberNamingTheIDIsEnough() throws {
        #expect(
            try authorization(["trackingid": "other", "taskid": "track-1"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(.authorization, .ok, "taskid track-1"))
        #expect(
            try authorization(["trackingid": "a", "taskid": "b"], kind: .deliveryConsumer, id: "c")
                == RuleResult(
                    .authorization, .fail,
                    "authorization.trackingid is \"a\"; authorization.taskid is \"b\", not the requested \"c\""))
    }

    @Test func aDeliveryConsumerTokenNeedsOneOfItsClaims() throws {
        #expect(
            try authorization(["tripid": "track-1"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(.authorization, .fail, "no authorization.trackingid, taskid or taskids (has tripid)"))
        #expect(
            try authorization(nil, kind: .deliveryConsumer, id: "track-1")
                == RuleResult(
                    .authorization, .fail,
                    "no authorization claim; a tracking token needs authorization.trackingid, taskid or taskids"))
        // taskid is no trip token's claim.
        #expect(try authorization(["taskid": "trip-1"], kind: .consumer, id: "trip-1").level == .fail)
    }

    @Test func trackingWildcardAndUnknownClaims() throws {
        #expect(
            try authorization(["taskids": ["*"]], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(.authorization, .warn, "taskids is \"*\": covers every tracking, too broad for a device"))
        #expect(
            try authorization(["trackingid": "track-1", "shipmentid": "s"], kind: .deliveryConsumer, id: "track-1")
                == RuleResult(.authorization, .warn, "trackingid track-1; unknown claim shipmentid"))
        #expect(
            try authorization(["trackingid": "track-2"], kind: .deliveryConsumer, id: nil)
                == RuleResult(.authorization, .ok, "trackingid track-2"))
    }

    // MARK: - Kinds as data

    @Test func everyKindHasItsOwnClaimPlaceholderAndRoute() {
        let kinds = ProviderKind.allCases
        #expect(kinds.map(\.rawValue) == ["consumer", "driver", "delivery_consumer", "delivery_driver"])
        #expect(kinds.map(\.claimName) == ["tripid", "vehicleid", "trackingid", "deliveryvehicleid"])
        #expect(kinds.map(\.idParameter) == ["tripId", "vehicleId", "trackingId", "deliveryVehicleId"])
        #expect(Set(kinds.map(\.defaultRoutePath)).count == 4)
        #expect(ProviderKind.Solution.lastMile.kinds == [.deliveryConsumer, .deliveryDriver])
        #expect(kinds.map(\.role) == [.consumer, .driver, .consumer, .driver])
        #expect(DeliveryConsumerAuthorizationContext(trackingID: "t").id == "t")
        #expect(DeliveryDriverAuthorizationContext.kind == .deliveryDriver)
    }

    @Test func sampleBackendRoutesAndKeysOfTheLastMileSample() throws {
        let consumer = TokenEndpoint.sampleBackend(.deliveryConsumer, base: "http://b/")
        #expect(try consumer.url(for: "track 1").absoluteString == "http://b/token/delivery_consumer/track%201")
        // No keys fixed: the last-mile sample's answer is recognised by its shape.
        #expect(consumer.tokenKey == nil && consumer.expiryKey == nil && consumer.expiryMode == .auto)
        let ms = (1_800_000_600) * 1000
        let body =
            "{\"token\":\"\(TestJWT.make(kind: .deliveryConsumer, id: "track 1", iat: 1_800_000_000, exp: 1_800_000_600))\",\"expiration_timestamp_ms\":\(ms)}"
        let token = try TokenResponseDecoder(endpoint: consumer).decode(
            TransportResponse(status: 200, body: Data(body.utf8)), id: "track 1",
            now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(token.shape == "last-mile sample {token, expiration_timestamp_ms}")
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_800_000_600))
        let driver = TokenEndpoint.sampleBackend(.deliveryDriver, base: "http://b")
        #expect(try driver.url(for: "dv-1").absoluteString == "http://b/token/delivery_driver/dv-1")
        #expect(driver.tokenKey == nil)
        // The on-demand sample's shape is detected (ResponseShapeTests), so nothing is fixed for it.
        let trip = TokenEndpoint.sampleBackend(.consumer, base: "http://b")
        #expect(trip.tokenKey == nil && trip.expiryMode == .auto)
        // A user's template may name the placeholder, or give none (then a query item).
        let custom = TokenEndpoint(kind: .deliveryDriver, urlTemplate: "https://h/v/{deliveryVehicleId}/t")
        #expect(try custom.url(for: "dv-1").absoluteString == "https://h/v/dv-1/t")
        let query = TokenEndpoint(kind: .deliveryConsumer, urlTemplate: "https://h/t")
        #expect(try query.url(for: "a").absoluteString == "https://h/t?trackingId=a")
    }

    /// The generic provider fetches, judges and caches a delivery token from the last-mile
    /// sample's answer, and refuses one minted for another tracking ID.
    @Test func theOneProviderServesDeliveryKinds() async throws {
        let clock = ManualClock()
        func transport(_ kind: ProviderKind, claim: @escaping @Sendable (String) -> [String: Any]) -> FakeTransport {
            FakeTransport { request in
                let now = Int(clock.now().timeIntervalSince1970)
                let jwt = TestJWT.make(
                    kind: kind, iat: now, exp: now + 3600, account: Self.account,
                    claims: ["authorization": claim(requestedID(request))])
                let body =
                    "{\"token\":\"\(jwt)\",\"creation_timestamp_ms\":\(now * 1000),\"expiration_timestamp_ms\":\((now + 3600) * 1000)}"
                return TransportResponse(status: 200, body: Data(body.utf8))
            }
        }
        let tracking = DeliveryConsumerTokenProvider(
            endpoint: .sampleBackend(.deliveryConsumer, base: "http://b"),
            transport: transport(.deliveryConsumer) { ["taskids": ["task-0", $0]] }, clock: clock)
        let token = try await tracking.fetchToken(for: DeliveryConsumerAuthorizationContext(trackingID: "track-1"))
        #expect(
            try JWTInspector.decode(token).claims["authorization"]?["taskids"]
                == .array([.string("task-0"), .string("track-1")]))
        let cached = try #require(await tracking.cachedToken)
        #expect(cached.expiresAt == clock.now().addingTimeInterval(3600))

        let van = DeliveryDriverTokenProvider(
            endpoint: .sampleBackend(.deliveryDriver, base: "http://b"),
            transport: transport(.deliveryDriver) { ["deliveryvehicleid": $0] }, clock: clock)
        let vanToken = try await van.fetchToken(for: DeliveryDriverAuthorizationContext(deliveryVehicleID: "dv-1"))
        #expect(van.kind == .deliveryDriver)
        #expect(
            try JWTInspector.decode(vanToken).claims["authorization"] == .object(["deliveryvehicleid": .string("dv-1")])
        )
        #expect(await van.cachedToken?.token == vanToken)

        let wrong = DeliveryConsumerTokenProvider(
            endpoint: .sampleBackend(.deliveryConsumer, base: "http://b"),
            transport: transport(.deliveryConsumer) { _ in ["trackingid": "someone-else"] }, clock: clock)
        await #expect(throws: FleetAuthError.wrongID(claim: "trackingid", expected: "track-1", found: "someone-else")) {
            try await wrong.fetchToken(for: DeliveryConsumerAuthorizationContext(trackingID: "track-1"))
        }
        #expect(await wrong.cachedToken == nil)
    }
}
