import Fleet
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import Settings
import TestSupport
import Testing

/// Every flag that shapes a run's calls, at both ends of its range in the settings table, with
/// the others at their built-in values (and the ramp at its default rate, as `watch` sets it):
/// every SDK of both sides makes its first call within the ramp and one update. `--callers 17`
/// once made no call at all (an SDK's update of 17 calls never fitted the window of 16), and
/// `watch` exited 0 having asked nothing. The ends that make a fleet of 100,000 SDKs or 10,000
/// callers are `FlagRangeLargeEndsTests`, run by CI's step of their own.
@Suite(.timeLimit(.minutes(15))) struct FlagRangeSweepTests {
    /// One run's settings: what `watch` would run with the flag at one end of its range.
    struct Run: CustomStringConvertible, Sendable {
        var flag: Setting
        var value: Double
        var trips = 1
        var vehicles = 1
        var callers = 1
        var ramp: Double?
        var interval = 5.0

        var description: String { "--\(flag.rawValue) \(value)" }
    }

    /// The flags that shape the fleet's calls: sizes, callers, the ramp, the update cadence.
    static let fleetFlags: [Setting] = [.callers, .trips, .vehicles, .ramp, .updateInterval]

    /// Both ends of `setting`'s range as the table gives it (just above an excluded lowest).
    static func ends(_ setting: Setting) -> [Double] {
        switch setting.entry.kind {
        case .count(let range, _): [Double(range.lowerBound), Double(range.upperBound)]
        case .seconds(let range): [range.excludesLowest ? range.lowest.nextUp : range.lowest, range.highest]
        default: []
        }
    }

    /// Every flag at both ends of its range.
    static var allRuns: [Run] {
        fleetFlags.flatMap { flag in
            ends(flag).map { value in
                var run = Run(flag: flag, value: value)
                switch flag {
                case .callers: run.callers = Int(value)
                case .trips: run.trips = Int(value)
                case .vehicles: run.vehicles = Int(value)
                case .ramp: run.ramp = value
                case .updateInterval: run.interval = value
                default: Issue.record("\(flag.rawValue) is not a fleet flag")
                }
                return run
            }
        }
    }

    /// A run of more than a thousand SDKs or callers: seconds of CPU each on a quiet machine,
    /// minutes under load, so not in `swift test`'s run.
    static func isLarge(_ run: Run) -> Bool { run.trips + run.vehicles > 1000 || run.callers > 1000 }

    /// The runs `swift test` makes: every end but the large ones.
    static var runs: [Run] { allRuns.filter { !isLarge($0) } }

    @Test func everyFleetFlagHasBothEndsInTheSweep() {
        for flag in Self.fleetFlags { #expect(Self.ends(flag).count == 2, "--\(flag.rawValue) has a numeric range") }
        #expect(Self.allRuns.count == Self.fleetFlags.count * 2)
        // The large ends run in CI's own step: each flag's upper end is in one list or the other.
        #expect(Set((Self.runs + FlagRangeLargeEndsTests.runs).map(\.description)).count == Self.allRuns.count)
        #expect(FlagRangeLargeEndsTests.runs.map(\.flag) == [.callers, .trips, .vehicles])
    }

    @Test(arguments: runs)
    func everySDKMakesItsFirstCallWithinTheRun(_ run: Run) async throws { try await Self.sweep(run) }

    /// Starts both sides' SDKs with `run`'s settings and moves the clock over the ramp and one
    /// update: every SDK has asked for its token by then.
    static func sweep(_ run: Run) async throws {
        let manual = ManualClock()
        let clock = SteppedClock(manual)
        let consumerIDs = (0..<run.trips).map { IDSequence.fleetID(prefix: "trip", index: $0, count: run.trips) }
        let driverIDs = (0..<run.vehicles).map { IDSequence.fleetID(prefix: "vehicle", index: $0, count: run.vehicles) }
        let consumerTransport = mintingTransport(kind: .consumer, clock: manual)
        let driverTransport = mintingTransport(kind: .driver, clock: manual)
        let consumers = SimulatedSDKs<TripAuthorizationContext>(
            ids: consumerIDs, endpoint: .sampleBackend(.consumer, base: "http://backend.test"),
            transport: consumerTransport, events: EventBroadcaster(), refreshMargin: 300, clock: manual)
        let drivers = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: driverIDs, endpoint: .sampleBackend(.driver, base: "http://backend.test"),
            transport: driverTransport, events: EventBroadcaster(), refreshMargin: 300, clock: manual)
        let total = run.trips + run.vehicles
        let ramp = run.ramp.map(FleetRamp.init(duration:)) ?? .atDefaultRate(total: total)
        let pacing = FleetPacing(ramp: ramp, total: total)
        let loops = Task {
            async let a: Void = consumers.run(
                interval: run.interval, callers: run.callers, ramp: ramp, clock: clock, pacer: pacing.ramp)
            async let b: Void = drivers.run(
                interval: run.interval, callers: run.callers, ramp: ramp, clock: clock, pacer: pacing.ramp)
            _ = await (a, b)
        }
        /// Both loops asleep with every call answered: nothing more is due until the clock moves.
        func quiet() async throws {
            try await eventually("\(run): the loops asleep, their calls answered") {
                let (c, d) = (await consumers.started, await drivers.started)
                let sleepers = (ramp.spreads && c < run.trips ? 2 : 1) + (ramp.spreads && d < run.vehicles ? 2 : 1)
                return pacing.ramp.status.inFlight == 0 && clock.sleeping == sleepers
            }
        }
        func fetched(_ transport: FakeTransport, _ ids: [String]) -> Bool {
            Set(transport.urls.map(\.lastPathComponent)).isSuperset(of: ids)
        }
        // The ramp and one update, with room for the window's slow start: the run's own length.
        let horizon = ramp.duration + run.interval + 2
        let step = max(0.01, horizon / 400)
        var elapsed = 0.0
        try await quiet()
        while !(fetched(consumerTransport, consumerIDs) && fetched(driverTransport, driverIDs)), elapsed < horizon {
            clock.advance(by: step)
            elapsed += step
            try await quiet()
        }
        let (trips, vehicles) = (await consumers.started, await drivers.started)
        #expect(trips == run.trips && vehicles == run.vehicles, "\(run)")
        #expect(fetched(consumerTransport, consumerIDs), "\(run): every trip asked for its token")
        #expect(fetched(driverTransport, driverIDs), "\(run): every vehicle asked for its token")
        loops.cancel()
        await loops.cancellingValue
    }

    /// Single-flight turns an SDK's callers into one request, whatever their number: the window
    /// sees that one request, and the backend gets one per provider.
    @Test(arguments: [1, 16, 17, 50, 1000])
    func callersAskingAtOnceAreOneRequestPerProvider(_ callers: Int) async throws {
        try await Self.singleFlight(callers: callers)
    }

    static func singleFlight(callers: Int) async throws {
        let manual = ManualClock()
        let clock = SteppedClock(manual)
        let transport = mintingTransport(kind: .consumer, clock: manual)
        let ids = ["trip-1", "trip-2"]
        let sdks = SimulatedSDKs<TripAuthorizationContext>(
            ids: ids, endpoint: .sampleBackend(.consumer, base: "http://backend.test"), transport: transport,
            events: EventBroadcaster(), refreshMargin: 300, clock: manual)
        let ramp = FleetRamp.atDefaultRate(total: 2)
        let pacer = FleetPacing(ramp: ramp, total: 2).ramp
        let loop = Task { await sdks.run(interval: 5, callers: callers, ramp: ramp, clock: clock, pacer: pacer) }
        try await eventually("the first SDK asked") { transport.count == 1 }
        clock.advance(by: 0.01)
        // The window saw each SDK's one request answered.
        try await eventually("both SDKs asked, the ramp over, its calls answered") {
            await sdks.started == 2 && transport.count == 2 && clock.sleeping == 1 && pacer.status.inFlight == 0
        }
        #expect(transport.count == 2, "one request per provider with \(callers) callers")
        loop.cancel()
        await loop.cancellingValue
    }

    /// A provider that does not share a fetch (Google's Swift sample) sends one request per caller:
    /// 50 of them cost more than the window's 16, and the SDK still gets in, alone.
    @Test func anSDKWhoseUpdateIsLargerThanTheWindowStillStarts() async throws {
        let manual = ManualClock()
        let clock = SteppedClock(manual)
        let transport = mintingTransport(kind: .consumer, clock: manual)
        let sdks = SimulatedSDKs<TripAuthorizationContext>(
            ids: ["trip-1", "trip-2"], endpoint: .sampleBackend(.consumer, base: "http://backend.test"),
            transport: transport, events: EventBroadcaster(), refreshMargin: 300, clock: manual, logic: .swiftSample)
        let ramp = FleetRamp.atDefaultRate(total: 2)
        let pacer = FleetPacing(ramp: ramp, total: 2).ramp
        let loop = Task { await sdks.run(interval: 5, callers: 50, ramp: ramp, clock: clock, pacer: pacer) }
        try await eventually("the first SDK's callers asked") { transport.count >= 1 }
        clock.advance(by: 0.01)
        try await eventually("the second SDK started") { await sdks.started == 2 }
        try await eventually("its callers asked") { Set(transport.urls.map(\.lastPathComponent)).contains("trip-2") }
        loop.cancel()
        await loop.cancellingValue
    }
}

/// The ends of `--trips`, `--vehicles` (100,000 SDKs) and `--callers` (10,000) that
/// `FlagRangeSweepTests` leaves out: minutes of CPU on a loaded machine, past its time limit. They
/// run only with `TOKENDASH_LARGE_FLAG_ENDS=1`, in `.ci/run`'s step of their own, whose `timeout`
/// is their measured budget; the same checks as the suite's own ends.
@Suite(.timeLimit(.minutes(15))) struct FlagRangeLargeEndsTests {
    static let enabled = ProcessInfo.processInfo.environment["TOKENDASH_LARGE_FLAG_ENDS"] == "1"
    static let why = "the large flag ends run in CI's own step (TOKENDASH_LARGE_FLAG_ENDS=1)"

    static var runs: [FlagRangeSweepTests.Run] { FlagRangeSweepTests.allRuns.filter(FlagRangeSweepTests.isLarge) }

    @Test(.enabled(if: enabled, "\(why)"), arguments: runs)
    func everySDKMakesItsFirstCallWithinTheRun(_ run: FlagRangeSweepTests.Run) async throws {
        try await FlagRangeSweepTests.sweep(run)
    }

    @Test(.enabled(if: enabled, "\(why)"))
    func tenThousandCallersAreOneRequestPerProvider() async throws {
        try await FlagRangeSweepTests.singleFlight(callers: 10_000)
    }
}
