import EventLines
import Fleet
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing

/// The fleet's tests step the shared clock of TestSupport.
typealias SteppedFleetClock = SteppedClock

/// Waits until `condition` holds, polling (the fleet publishes nothing when its loops park); a
/// condition never met is ended by the suite's time limit, whose cancellation throws.
func eventually(_ what: String, _ condition: () async -> Bool) async throws {
    guard await TestSupport.eventually(condition) else { throw Expectation(what) }
}

struct Expectation: Error, CustomStringConvertible {
    let description: String
    init(_ what: String) { description = "never happened: \(what)" }
}

@Suite(.timeLimit(.minutes(15))) struct FleetRampTests {
    /// `count` SDKs of `Context`'s kind numbered as a fleet, on a backend minting tokens by `clock`.
    func group<Context: AuthorizationContext>(_: Context.Type, _ count: Int, clock: ManualClock)
        -> (SimulatedSDKs<Context>, FakeTransport)
    {
        let kind = Context.kind
        let transport = mintingTransport(kind: kind, clock: clock)
        let sdks = SimulatedSDKs<Context>(
            ids: (0..<count).map {
                IDSequence.fleetID(prefix: kind == .consumer ? "trip" : "vehicle", index: $0, count: count)
            },
            endpoint: .sampleBackend(kind, base: "http://backend.test"), transport: transport,
            events: EventBroadcaster(), refreshMargin: 300, clock: clock)
        return (sdks, transport)
    }

    @Test func theRampSetsTheCeilingOfTheRate() {
        #expect(FleetRamp(duration: 10).rate(count: 1000) == 100)
        #expect(FleetRamp(duration: 0).rate(count: 1000) == .infinity, "--ramp 0: the stampede")
        #expect(!FleetRamp(duration: 0).spreads)
        #expect(FleetRamp(duration: -3).duration == 0)
    }

    @Test func theDefaultIsAThousandNewSDKsASecond() {
        #expect(FleetRamp.atDefaultRate(total: 100_000).duration == 100)
        #expect(FleetRamp.atDefaultRate(total: 2).duration == 0.002)
    }

    /// 1,000 trips over 10 s: the backend sees 101 first calls after 1 s, 501 after 5 s, all after
    /// 10 s, and none early; updates in between reach only the SDKs already started.
    @Test func aRampedGroupAsksTheBackendOnSchedule() async throws {
        let manual = ManualClock()
        let clock = SteppedFleetClock(manual)
        let (sdks, transport) = group(TripAuthorizationContext.self, 1000, clock: manual)
        // Updates every 2 s in 10 slices: members already started are asked again, from the cache.
        // The pacer's, so each step can wait for the backend's instant answers to be in: a call
        // answered only after the clock moved on would read as a slow backend.
        let pacer = Pacer(RateControl(ceiling: 100, timeout: 10))
        let loop = Task { await sdks.run(interval: 2, ramp: FleetRamp(duration: 10), clock: clock, pacer: pacer) }
        func settle(_ started: Int) async throws {
            try await eventually("\(started) started") { await sdks.started == started }
            try await eventually("\(started) first calls") { transport.count == started }
            // The loops back asleep (the ramp's ends once all have started): nothing more is due now.
            let loops = started == 1000 ? 1 : 2
            try await eventually("the loops asleep") { clock.sleeping == loops }
            #expect(transport.count == started, "no SDK asks before its turn")
        }
        // Eighths of a second (exact in binary, so the counts are the schedule's to the SDK), as
        // the ramp wakes at least that often: its window would hold back a 4 s jump's 400 calls.
        func run(for seconds: Int) async throws {
            for _ in 0..<(seconds * 8) {
                clock.advance(by: 0.125)
                try await eventually("the ramp asleep, its calls answered") {
                    let started = await sdks.started
                    return pacer.status.inFlight == 0
                        && (clock.sleeping == 2 || (started == 1000 && clock.sleeping == 1))
                }
            }
        }
        try await settle(1)
        try await run(for: 1)
        try await settle(101)
        try await run(for: 4)
        try await settle(501)
        let urls = Set(transport.urls.map(\.lastPathComponent))
        #expect(
            urls == Set((0..<501).map { IDSequence.fleetID(prefix: "trip", index: $0, count: 1000) }),
            "the first 501, in order")
        try await run(for: 5)
        try await settle(1000)
        loop.cancel()
        await loop.cancellingValue
    }

    /// Paused at 3 s for 20 s: no SDK starts meanwhile, and the ramp goes on from 301, not with a
    /// burst of everything that fell due.
    @Test func aPauseHoldsTheRamp() async throws {
        let manual = ManualClock()
        let clock = SteppedFleetClock(manual)
        let (sdks, transport) = group(VehicleAuthorizationContext.self, 1000, clock: manual)
        let pacer = Pacer(RateControl(ceiling: 100, timeout: 10))
        let loop = Task { await sdks.run(interval: 3600, ramp: FleetRamp(duration: 10), clock: clock, pacer: pacer) }
        func asleep() async throws {
            try await eventually("the ramp asleep, its calls answered") {
                pacer.status.inFlight == 0 && clock.sleeping == 2
            }
        }
        try await eventually("the first call") { transport.count == 1 }
        try await asleep()
        for _ in 0..<24 {
            clock.advance(by: 0.125)
            try await asleep()
        }
        try await eventually("301 started") { await sdks.started == 301 }
        sdks.setPaused(true)
        try await asleep()
        for _ in 0..<200 {
            clock.advance(by: 0.1)
            try await asleep()
        }
        #expect(await sdks.started == 301)
        sdks.setPaused(false)
        clock.advance(by: 0.1)
        try await asleep()
        let after = await sdks.started
        #expect(after > 301 && after <= 321, "about 0.1-0.2 s of the ramp after the pause, not 20 s of it: \(after)")
        loop.cancel()
        await loop.cancellingValue
    }

    /// A backend that stops answering: the ramp stops at its window (16 calls in flight at first),
    /// says why, slows, and goes on when the answers come back.
    @Test func aStalledBackendHoldsTheRampAtItsWindow() async throws {
        let manual = ManualClock()
        let clock = SteppedFleetClock(manual)
        let gate = Gate()
        let kind = ProviderKind.consumer
        let transport = mintingTransport(kind: kind, clock: manual, gate: gate)
        let sdks = SimulatedSDKs<TripAuthorizationContext>(
            ids: (0..<1000).map { IDSequence.fleetID(prefix: "trip", index: $0, count: 1000) },
            endpoint: .sampleBackend(kind, base: "http://backend.test"), transport: transport,
            events: EventBroadcaster(), refreshMargin: 300, clock: manual)
        let pacer = Pacer(RateControl(ceiling: 100, timeout: 10))
        let loop = Task { await sdks.run(interval: 3600, ramp: FleetRamp(duration: 10), clock: clock, pacer: pacer) }
        for _ in 0..<40 {
            clock.advance(by: 0.125)
            try await eventually("the ramp asleep") { clock.sleeping == 2 }
        }
        // The window starts at 16 calls, as TCP's, and grows only with answers.
        let held = await sdks.started
        #expect(held == 16, "5 s of a 100/s ramp, held by its window: \(held)")
        try await eventually("the calls parked at the backend") { transport.count == held }
        let stalled = pacer.status
        #expect(stalled.rate < 100, "slowed: \(stalled.summary())")
        guard case .stalled = stalled.reason else {
            Issue.record("the reason is the stall: \(stalled.summary())")
            return
        }
        await gate.open()
        try await eventually("the answers in") { pacer.status.inFlight == 0 }
        for _ in 0..<16 {
            clock.advance(by: 0.125)
            try await eventually("the ramp asleep") { clock.sleeping == 2 }
        }
        #expect(await sdks.started > held, "going on once the backend answers")
        loop.cancel()
        await loop.cancellingValue
    }

    @Test func withoutARampEverySDKHasStarted() async throws {
        let manual = ManualClock()
        let clock = SteppedFleetClock(manual)
        let (sdks, transport) = group(TripAuthorizationContext.self, 200, clock: manual)
        let loop = Task { await sdks.run(interval: 1, ramp: FleetRamp(duration: 0), clock: clock) }
        try await eventually("all started") { await sdks.started == 200 }
        // Two slices of 100, half a second apart, as before ramps existed.
        try await eventually("the first slice") { transport.count == 100 && clock.sleeping == 1 }
        clock.advance(by: 0.5)
        try await eventually("the second slice") { transport.count == 200 }
        loop.cancel()
        await loop.cancellingValue
    }

    /// The fleet rows' count: members that made a call, kept when an SDK's ID changes.
    @Test func statisticsCountTheSDKsStarted() {
        let t0 = TestTime.t0
        var stats = FleetStatistics(ids: (1...10).map { "trip-\($0)" })
        for i in 1...3 {
            stats.record(
                ProviderEvent(time: t0, provider: .consumer, id: "trip-\(i)", kind: .fetchStarted(reason: .noToken)))
        }
        stats.record(ProviderEvent(time: t0, provider: .consumer, id: "trip-1", kind: .cacheHit(expiresAt: t0)))
        stats.record(
            ProviderEvent(time: t0, provider: .consumer, id: "trip-x", kind: .idChanged(from: "trip-2", to: "trip-x")))
        let summary = stats.summary(now: t0, providers: 10)
        #expect(summary.started == 3)
        #expect(summary.isStarting)
        for i in 4...10 {
            stats.record(
                ProviderEvent(time: t0, provider: .consumer, id: "trip-\(i)", kind: .fetchStarted(reason: .noToken)))
        }
        #expect(stats.summary(now: t0, providers: 10).started == 10)
        #expect(!stats.summary(now: t0, providers: 10).isStarting)
    }

    @Test func theWatchSummarySaysHowManyStarted() {
        let line = EventLineEncoder(reveal: false).summary(
            [:], kinds: [.consumer, .driver],
            started: [.consumer: (12_000, 50_000), .driver: (11_999, 50_000)])
        #expect(
            line.contains(#""started":12000"#) && line.contains(#""sdks":50000"#) && line.contains(#""started":11999"#))
        #expect(!EventLineEncoder(reveal: false).summary([:]).contains("started"), "only when the groups were asked")
    }
}
