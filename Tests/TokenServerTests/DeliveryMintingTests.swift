import Faults
import Foundation
import JWTKit
import ProviderVocabulary
import Testing
import TokenJudging
import TokenProviders
import TokenReading

@testable import TokenServer

/// The embedded server as Google's last-mile sample backend: its routes, its snake_case
/// millisecond answer, tokens with the delivery claims, and faults that stay on their kind.
@Suite(.timeLimit(.minutes(15))) struct DeliveryMintingTests {
    @Test func deliveryConsumerProviderGetsAVerifiableTrackingToken() async throws {
        try await withServer { s in
            let provider = DeliveryConsumerTokenProvider(
                endpoint: s.endpoint(.deliveryConsumer), transport: s.transport)
            let token = try await provider.fetchToken(
                for: DeliveryConsumerAuthorizationContext(trackingID: "tracking-42"))
            let claims = try await s.verify(token)
            #expect(claims.authorization == ["trackingid": "tracking-42"])
            #expect(claims.exp - claims.iat == 3600)
            let jwt = try JWTInspector.decode(token)
            #expect(TokenRules.evaluate(jwt, kind: .deliveryConsumer, id: "tracking-42", now: Date()).worst == .ok)
            let cached = try #require(await provider.cachedToken)
            #expect(cached.expiresAt == Date(timeIntervalSince1970: TimeInterval(claims.exp)))
        }
    }

    @Test func deliveryDriverProviderGetsAVerifiableDeliveryVehicleToken() async throws {
        try await withServer(lifetime: 600) { s in
            let provider = DeliveryDriverTokenProvider(endpoint: s.endpoint(.deliveryDriver), transport: s.transport)
            let token = try await provider.fetchToken(
                for: DeliveryDriverAuthorizationContext(deliveryVehicleID: "van_7.b"))
            let claims = try await s.verify(token)
            #expect(claims.authorization == ["deliveryvehicleid": "van_7.b"])
            #expect(claims.exp - claims.iat == 600)
            #expect(await s.server.stats().deliveryDriver.minted == 1)
            #expect(await s.server.stats().driver.minted == 0)
        }
    }

    @Test func theAnswerHasTheLastMileSampleShape() async throws {
        try await withServer { s in
            let (status, json) = try await s.json("/token/delivery_consumer/tracking-1")
            #expect(status == 200)
            let expiry = try #require(json["expiration_timestamp_ms"]?.intValue)
            let creation = try #require(json["creation_timestamp_ms"]?.intValue)
            #expect(expiry - creation == 3_600_000)
            #expect(json["token"]?.stringValue?.split(separator: ".").count == 3)
            #expect(json["jwt"] == nil && json["expirationTimestamp"] == nil)
            // The on-demand route keeps the on-demand sample's shape.
            let (_, trip) = try await s.json("/token/consumer/trip-1")
            #expect(trip["jwt"] != nil && trip["token"] == nil)
        }
    }

    @Test func faultsApplyByKind() async throws {
        try await withServer { s in
            await s.server.setFault(.http500, for: .deliveryDriver)
            #expect(await s.server.faults() == [.deliveryDriver: FaultSetting(.http500)])
            let van = DeliveryDriverTokenProvider(endpoint: s.endpoint(.deliveryDriver), transport: s.transport)
            await #expect(throws: FleetAuthError.self) {
                try await van.fetchToken(for: DeliveryDriverAuthorizationContext(deliveryVehicleID: "dv-1"))
            }
            // Neither the on-demand vehicle route nor the other delivery kind is touched.
            let vehicle = DriverTokenProvider(endpoint: s.endpoint(.driver), transport: s.transport)
            let vehicleToken = try await vehicle.fetchToken(for: VehicleAuthorizationContext(vehicleID: "v-1"))
            #expect(try await s.verify(vehicleToken).authorization == ["vehicleid": "v-1"])
            let tracking = DeliveryConsumerTokenProvider(
                endpoint: s.endpoint(.deliveryConsumer), transport: s.transport)
            let trackingToken = try await tracking.fetchToken(
                for: DeliveryConsumerAuthorizationContext(trackingID: "t-1"))
            #expect(try await s.verify(trackingToken).authorization == ["trackingid": "t-1"])

            let (status, json) = try await s.json("/faults/deliveries/wrong-id", method: "PUT")
            #expect(status == 200)
            #expect(json["delivery_consumer"]?["name"] == .string("wrong-id"))
            #expect(json["delivery_driver"]?["name"] == .string("wrong-id"))
            #expect(json["consumer"] == .null)
        }
    }
}
