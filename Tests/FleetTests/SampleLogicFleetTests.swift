import Fleet
import Foundation
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing

/// `SimulatedSDKs(logic:)` builds the chosen provider core for every SDK and drives it as it
/// drives tokendash's.
@Suite(.timeLimit(.minutes(15))) struct SampleLogicFleetTests {
    @Test(arguments: ProviderLogic.allCases)
    func aGroupRunsTheLogicItWasGiven(logic: ProviderLogic) async throws {
        let clock = ManualClock()
        let transport = mintingTransport(kind: .driver, clock: clock)
        let sdks = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: ["vehicle-1", "vehicle-2"], endpoint: .sampleBackend(.driver, base: "http://backend.test"),
            transport: transport, events: EventBroadcaster(), refreshMargin: 300, clock: clock, logic: logic)
        #expect(sdks.logic == logic)
        #expect(sdks.providers.allSatisfy { $0.logic == logic })
        await sdks.update()
        await sdks.update()
        // The second update is served from every logic's cache.
        #expect(transport.count == 2)
        let member = await sdks.member(at: 1)
        #expect(member.id == "vehicle-2")
        #expect(member.token?.id == "vehicle-2")
        #expect(member.lastError == nil)
    }

    @Test func tokendashIsTheDefaultAndHasNoPaneLabel() {
        let sdks = SimulatedSDKs<TripAuthorizationContext>(
            ids: ["trip-1"], endpoint: .sampleBackend(.consumer, base: "http://backend.test"),
            transport: mintingTransport(kind: .consumer), events: EventBroadcaster(), refreshMargin: 300)
        #expect(sdks.logic == .tokendash)
        #expect(sdks.logic?.paneLabel == nil)
        #expect(ProviderLogic(rawValue: "objc-sample")?.paneLabel == "ObjC sample")
        #expect(ProviderLogic(rawValue: "swift-sample")?.paneLabel == "Swift sample")
    }
}
