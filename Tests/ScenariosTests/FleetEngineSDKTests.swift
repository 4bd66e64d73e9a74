import Faults
import Fleet
import FleetEngineAPI
import Foundation
import HTTPTransport
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing
import TokenServer

/// Simulated SDKs calling the embedded Fleet Engine with their tokens, over loopback: the
/// answers are events, and a token the provider refused is still put to Fleet Engine.
@Suite(.timeLimit(.minutes(15))) struct FleetEngineSDKTests {
    static func withGroups(
        _ body: (
            EmbeddedTokenServer, SimulatedSDKs<TripAuthorizationContext>,
            SimulatedSDKs<VehicleAuthorizationContext>, EventRecorder
        ) async throws -> Void
    ) async throws {
        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(lifetime: 600), key: SharedKey.key)
        let base = try await server.start()
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let target = FleetEngineTarget(base: base, provider: server.fleetEngineProject, writes: true)
        let trips = SimulatedSDKs<TripAuthorizationContext>(
            ids: ["trip-1"], endpoint: .sampleBackend(.consumer, base: base.absoluteString), transport: sharedTransport,
            events: events, refreshMargin: 60, fleetEngine: target)
        let vehicles = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: ["vehicle-1"], endpoint: .sampleBackend(.driver, base: base.absoluteString),
            transport: sharedTransport,
            events: events, refreshMargin: 60, fleetEngine: target)
        do { try await body(server, trips, vehicles, recorder) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func answer(_ recorder: EventRecorder, _ kind: ProviderKind) async throws -> FleetEngineAnswer {
        let event = try await recorder.next("a Fleet Engine call by \(kind)") {
            if case .fleetEngineCall = $0.kind { return $0.provider == kind }
            return false
        }
        guard case .fleetEngineCall(let answer) = event.kind else { throw FleetAuthError.other("not a call") }
        return answer
    }

    @Test func everySDKsFirstUpdateIsAnsweredByFleetEngine() async throws {
        try await Self.withGroups { _, trips, vehicles, recorder in
            await trips.update()
            await vehicles.update()
            let trip = try await Self.answer(recorder, .consumer)
            #expect(trip.method == .getTrip && trip.status == "OK" && !trip.verdictDisagrees)
            let vehicle = try await Self.answer(recorder, .driver)
            #expect(vehicle.method == .updateVehicle && vehicle.status == "OK")
            #expect(vehicle.resource == "providers/tokendash/vehicles/vehicle-1")
        }
    }

    @Test func aWrongIDTokenIsRefusedByTheProviderAndByFleetEngineWithItsMessage() async throws {
        try await Self.withGroups { server, _, vehicles, recorder in
            await server.setFault(.wrongID, for: .driver)
            await vehicles.update()
            let answer = try await Self.answer(recorder, .driver)
            #expect(answer.httpStatus == 403 && answer.status == "PERMISSION_DENIED")
            #expect(
                answer.message
                    == "authorization.vehicleid is \"not-vehicle-1\", which does not cover providers/tokendash/vehicles/vehicle-1"
            )
            #expect(answer.refusedByProvider)
            // Both refused it: no disagreement.
            #expect(!answer.verdictDisagrees)
        }
    }

    @Test func aRevokedKeyIsRefusedByFleetEngineAloneAndTheDisagreementIsSaid() async throws {
        try await Self.withGroups { server, _, vehicles, recorder in
            await server.setFault(.revokedKey, for: .driver)
            await vehicles.update()
            let answer = try await Self.answer(recorder, .driver)
            #expect(answer.status == "UNAUTHENTICATED" && !answer.refusedByProvider)
            #expect(answer.verdictDisagrees)
        }
    }
}
