import Fleet
import Pacing
import Testing

/// The line `watch` exits 1 with when a ramp had not started every SDK: how many, which, and
/// what held them, read off the pace when the run ended.
@Suite(.timeLimit(.minutes(15))) struct RampShortfallTests {
    func pace(_ reason: PaceReason, rate: Double = 1000, inFlight: Int = 0, window: Int = 16) -> Pacer.Status {
        Pacer.Status(
            rate: rate, ceiling: 1000, floor: 10, reason: reason, inFlight: inFlight, window: window, active: true)
    }

    @Test func everySDKStartedIsNoShortfall() {
        #expect(
            RampShortfall(
                started: 4, total: 4, firstIDs: [], pace: pace(.calm(p99: 0.01)), ramp: FleetRamp(duration: 1))
                == nil)
    }

    @Test func aBackendThatNeverAnsweredIsNamedAsTheCause() throws {
        let shortfall = try #require(
            RampShortfall(
                started: 16, total: 50, firstIDs: ["trip-0017", "trip-0018", "trip-0019"],
                pace: pace(.starting, inFlight: 16), ramp: FleetRamp(duration: 0.05)))
        #expect(
            shortfall.description
                == "34 of 50 SDKs never made their first call (trip-0017, trip-0018, trip-0019 and 31 more), so they are not judged: the backend never answered: the window's 16 calls in flight were still waiting"
        )
    }

    @Test func aFullWindowOfSlowAnswersIsTheWindow() throws {
        let shortfall = try #require(
            RampShortfall(
                started: 40, total: 400, firstIDs: ["trip-0041"],
                pace: pace(.slow(p99: 2.1), rate: 20, inFlight: 32, window: 32),
                ramp: FleetRamp(duration: 4)))
        #expect(
            shortfall.reason
                == "the window of 32 calls in flight was full: the backend answered slower than the ramp (20/s (backend p99 2.1 s, slowing))"
        )
    }

    @Test func aPaceCutByOverloadIsThePace() throws {
        let shortfall = try #require(
            RampShortfall(
                started: 1, total: 3, firstIDs: ["trip-0002", "vehicle-0001"],
                pace: pace(.overloaded(count: 3, p99: nil), rate: 5, inFlight: 2),
                ramp: FleetRamp(duration: 4)))
        #expect(
            shortfall.reason
                == "the backend's answers had slowed the ramp to 5.0/s (3 overloaded answers (timeouts, 429, 5xx))")
        #expect(shortfall.description.hasPrefix("2 of 3 SDKs never made their first call (trip-0002, vehicle-0001), "))
    }

    @Test func aCalmRampCutShortIsTheSchedule() throws {
        let shortfall = try #require(
            RampShortfall(
                started: 100, total: 400, firstIDs: ["trip-0101"], pace: pace(.calm(p99: 0.004)),
                ramp: FleetRamp(duration: 4)))
        #expect(shortfall.reason == "the ramp (--ramp 4 s) had not reached them yet")
    }
}
