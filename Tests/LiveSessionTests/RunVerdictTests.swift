import Fleet
import LiveSession
import Pacing
import ProviderVocabulary
import Testing

/// What `watch` says and exits with when its run ends: a health check fails when any SDK holds
/// no valid token, and when a ramp never started some (nothing was asked of them).
@Suite(.timeLimit(.minutes(15))) struct RunVerdictTests {
    let calm = Pacer.Status(
        rate: 1000, ceiling: 1000, floor: 10, reason: .calm(p99: 0.01), inFlight: 0, window: 16, active: true)

    @Test func everySDKHoldingATokenPasses() {
        let verdict = RunVerdict(shortfall: nil, missing: [])
        #expect(!verdict.failed)
        #expect(verdict.lines.isEmpty)
    }

    @Test func sdksNeverStartedFailTheRunThoughEveryStartedOneHoldsAToken() throws {
        let shortfall = try #require(
            RampShortfall(started: 10, total: 40, firstIDs: ["trip-0011"], pace: calm, ramp: FleetRamp(duration: 4)))
        let verdict = RunVerdict(shortfall: shortfall, missing: [])
        #expect(verdict.failed)
        #expect(
            verdict.lines == [
                "ramp: 30 of 40 SDKs never made their first call (trip-0011 and 29 more), so they are not judged: the ramp (--ramp 4 s) had not reached them yet"
            ])
    }

    @Test func theFirstSDKWithoutATokenIsNamedWithItsCause() {
        let verdict = RunVerdict(
            shortfall: nil,
            missing: [
                (.consumer, "trip-0001", "backend answered HTTP 503"), (.driver, "vehicle-0001", nil),
            ])
        #expect(verdict.failed)
        #expect(
            verdict.lines == ["trip ID trip-0001 ended without a valid token: backend answered HTTP 503 (and 1 more)"])
    }
}
