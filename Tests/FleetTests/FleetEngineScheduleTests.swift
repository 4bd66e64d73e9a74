import Fleet
import FleetEngineAPI
import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing

/// The SDKs' Fleet Engine calls ride beside their token calls, never in their way.
@Suite(.timeLimit(.minutes(15))) struct FleetEngineScheduleTests {
    @Test(.timeLimit(.minutes(15)))
    func aFleetEngineThatNeverAnswersDoesNotHoldUpTheTokenCalls() async throws {
        let gate = Gate()
        let fleetEngineCalls = Mutex(0)
        let clock = ManualClock()
        let minting = mintingTransport(kind: .driver, clock: clock)
        // Token routes are answered; Fleet Engine's route hangs until the test ends.
        let transport = FakeTransport { request in
            if request.url.path.hasPrefix("/v1/") {
                fleetEngineCalls.withLock { $0 += 1 }
                await gate.wait()
                return TransportResponse(status: 200, body: Data("{}".utf8))
            }
            return try await minting.send(request)
        }
        let target = FleetEngineTarget(
            base: URL(string: "http://fleet-engine.test")!, provider: "p", writes: true, interval: 10)
        let sdks = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: ["vehicle-1"], endpoint: .sampleBackend(.driver, base: "http://backend.test"), transport: transport,
            events: EventBroadcaster(), refreshMargin: 60, clock: clock, fleetEngine: target)
        // Each update returns although the first one's Fleet Engine call is still out. The clock
        // stands still, so no second interval comes due however slowly a loaded machine runs them.
        await sdks.update()
        await sdks.update()
        await sdks.update()
        #expect(minting.count == 1)
        #expect(fleetEngineCalls.withLock { $0 } <= 1, "one call per interval, even while it hangs")
        await gate.open()
    }
}
