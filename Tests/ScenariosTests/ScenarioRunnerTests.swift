import Faults
import FleetAuth
import Foundation
import Scenarios
import Synchronization
import Testing

/// A clock that moves only by the runner's sleeps (a real millisecond per second slept, so other
/// tasks run and a long timeout is long enough for a test to act) or the test's `advance`.
final class StepClock: ScenarioClock {
    let manual = ManualClock(Date(timeIntervalSince1970: 0))
    func now() -> Date { manual.now() }
    func sleep(for seconds: TimeInterval) async throws {
        try await Task.sleep(for: .milliseconds(max(1, Int(seconds))))
        manual.advance(by: seconds)
    }
}

/// Records each call with the clock's time.
actor RecordingTarget: ScenarioTarget {
    let clock: StepClock
    var calls: [(String, TimeInterval)] = []
    init(clock: StepClock) { self.clock = clock }

    private func record(_ call: String) { calls.append((call, clock.now().timeIntervalSince1970)) }
    var names: [String] { calls.map(\.0) }
    func time(of call: String) -> TimeInterval? { calls.last { $0.0 == call }?.1 }

    func switchID(_ side: ScenarioSide, to id: String?) { record("switch \(side.rawValue) \(id ?? "next")") }
    func setFault(_ fault: Fault?, _ scope: RoleScope, latencyMilliseconds: Int?) {
        record("fault \(fault?.rawValue ?? "off") \(scope.rawValue)")
    }
    func refresh(_ scope: RoleScope) { record("refresh \(scope.rawValue)") }
    func setServerClockOffset(_ seconds: TimeInterval) { record("clock \(Int(seconds))") }
    func setTokenLifetime(_ seconds: TimeInterval?) { record("lifetime \(seconds.map { Int($0) } ?? 0)") }
    func setPaused(_ paused: Bool) { record(paused ? "pause" : "resume") }
}

@Suite struct ScenarioRunnerTests {
    let resetCalls = ["fault off both", "clock 0", "lifetime 0", "resume"]

    func scenario(_ steps: String) throws -> Scenario {
        try ScenarioParser.parse("name: demo\ndescription: d\nending: \"Shown: all\"\nsteps:\n" + steps, file: "demo.yaml")
    }

    func runner(_ scenario: Scenario, stepMode: Bool = false, events: EventBroadcaster = EventBroadcaster())
        -> (ScenarioRunner, RecordingTarget, StepClock, Reports) {
        let clock = StepClock()
        let target = RecordingTarget(clock: clock)
        let reports = Reports()
        let runner = ScenarioRunner(scenario: scenario, target: target, events: { events.subscribe() }, clock: clock,
                                    stepMode: stepMode, tick: 1) { reports.append($0) }
        return (runner, target, clock, reports)
    }

    @Test func stepsRunAtTheirTimesAndTheEndingIsReported() async throws {
        let (runner, target, _, reports) = runner(try scenario("""
              - at: 2s
                caption: first
                refresh: both
              - after: 5s
                fault: http500
              - at: 30s
                caption: last
                clear: faults
            """))
        await runner.start()
        await runner.waitUntilDone()
        #expect(await target.names == resetCalls + ["refresh both", "fault http500 both", "fault off both"])
        #expect(await target.time(of: "refresh both") == 2)
        #expect(await target.time(of: "fault http500 both") == 7)
        #expect(await target.time(of: "fault off both") == 30)
        let shown = reports.withLock { $0 }
        #expect(shown.map(\.step).contains(2))
        #expect(shown.contains { $0.step == 1 && $0.caption == "first" })
        // A step without a caption keeps the one before it.
        #expect(shown.contains { $0.step == 2 && $0.caption == "first" })
        #expect(shown.last?.status == .finished("Shown: all"))
        #expect(shown.last?.caption == "last")
    }

    @Test func stepModeRunsOneStepPerAdvance() async throws {
        let (runner, target, _, reports) = runner(try scenario("  - at: 1h\n    refresh: both\n  - switch: trip\n"), stepMode: true)
        await runner.start()
        #expect(await eventuallyTrue { reports.withLock { $0.last?.status == .awaitingStep } })
        #expect(await target.names == resetCalls)
        await runner.advance()
        #expect(await eventuallyTrue { await target.names.count == 5 })
        #expect(await eventuallyTrue { reports.withLock { $0.last.map { $0.status == .awaitingStep && $0.step == 1 } ?? false } })
        // The hour of the first step's at: is not waited for: the presenter sets the pace.
        #expect(await target.names.last == "refresh both")
        await runner.advance()
        await runner.waitUntilDone()
        #expect(await target.names.last == "switch consumer next")
    }

    @Test func pausedTimeDoesNotCount() async throws {
        let (runner, target, clock, reports) = runner(try scenario("  - at: 0s\n    caption: go\n  - at: 100s\n    refresh: driver\n"))
        await runner.start()
        #expect(await eventuallyTrue { reports.withLock { $0.last?.step == 1 } })
        await runner.pause()
        #expect(reports.withLock { $0.last?.status } == .paused)
        let pausedAt = clock.now().timeIntervalSince1970
        // Wall time passes while paused; the scenario's does not.
        clock.manual.advance(by: 1000)
        try await Task.sleep(for: .milliseconds(20))
        #expect(await target.names == resetCalls)
        await runner.resume()
        await runner.waitUntilDone()
        let at = try #require(await target.time(of: "refresh driver"))
        #expect(abs(at - (100 + 1000)) <= 1, "ran at \(at), paused at \(pausedAt)")
    }

    @Test func untilWaitsForTheEventAndGivesUpAfterItsTimeout() async throws {
        let events = EventBroadcaster()
        let (runner, target, _, reports) = runner(try scenario("""
              - refresh: driver
              - until: fetch_started driver
                timeout: 1h
              - until: backing_off
                timeout: 5s
              - switch: vehicle
            """), events: events)
        await runner.start()
        #expect(await eventuallyTrue { reports.withLock { $0.last?.status == .waiting(for: "fetch_started driver") } })
        // An event of the other side does not count.
        events.publish(ProviderEvent(time: Date(), provider: .consumer, id: "trip-1", kind: .fetchStarted(reason: .forced)))
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .fetchStarted(reason: .forced)))
        await runner.waitUntilDone()
        #expect(await target.names.suffix(2) == ["refresh driver", "switch driver next"])
        let notes = reports.withLock { $0.compactMap(\.note) }
        #expect(notes == ["gave up waiting for backing_off after 5s", "but it gave up waiting for backing_off"])
    }

    @Test func aPauseStopsAnUntilsTimeoutToo() async throws {
        let (runner, _, clock, reports) = runner(try scenario("  - until: expired driver\n    timeout: 200s\n"))
        await runner.start()
        #expect(await eventuallyTrue { reports.withLock { $0.last?.status == .waiting(for: "expired driver") } })
        await runner.pause()
        // Wall time well past the timeout while paused.
        clock.manual.advance(by: 1000)
        try await Task.sleep(for: .milliseconds(20))
        #expect(reports.withLock { $0.compactMap(\.note) }.isEmpty)
        await runner.resume()
        await runner.waitUntilDone()
        #expect(reports.withLock { $0.dropLast().last?.note } == "gave up waiting for expired driver after 3m20s")
        // The ending says so: it may claim what did not happen.
        #expect(reports.withLock { $0.last?.note } == "but it gave up waiting for expired driver")
    }

    @Test func anEventThatComesWhilePausedLeavesTheBannerPaused() async throws {
        let events = EventBroadcaster()
        let (runner, target, _, reports) = runner(try scenario("  - until: fetched driver\n    timeout: 1h\n  - refresh: both\n"), events: events)
        await runner.start()
        #expect(await eventuallyTrue { reports.withLock { $0.last?.status == .waiting(for: "fetched driver") } })
        await runner.pause()
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .forcedRefresh))
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .expired(at: Date())))
        // A fetched event ends the wait, but the scenario stays paused until resumed.
        let jwt = try JWTInspector.decode("eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjF9.c2ln")
        let token = FetchedToken(token: "x", id: "v-1", expiresAt: Date(), receivedAt: Date(), jwt: jwt)
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .fetched(token, latency: 0)))
        #expect(await eventuallyTrue { await target.names.count == resetCalls.count && reports.withLock { $0.last?.step == 1 && $0.last?.status == .paused } })
        try await Task.sleep(for: .milliseconds(20))
        #expect(await !target.names.contains("refresh both"))
        await runner.resume()
        await runner.waitUntilDone()
        #expect(await target.names.last == "refresh both")
    }

    @Test func restartGoesBackToTheFirstStepWithTheTargetReset() async throws {
        let (runner, target, _, reports) = runner(try scenario("  - fault: drop\n  - at: 1h\n    switch: trip\n"))
        await runner.start()
        #expect(await eventuallyTrue { await target.names.contains("fault drop both") })
        await runner.restart()
        #expect(await eventuallyTrue { await target.names.filter { $0 == "fault drop both" }.count == 2 })
        #expect(await target.names == resetCalls + ["fault drop both"] + resetCalls + ["fault drop both"])
        await runner.stop()
        #expect(reports.withLock { $0.last?.status } == .stopped)
    }
}

/// What a runner reported, in order.
final class Reports: Sendable {
    // Guards the reports; appended from the runner's actor, read by the test.
    private let list = Mutex<[ScenarioProgress]>([])
    func append(_ progress: ScenarioProgress) { list.withLock { $0.append(progress) } }
    func withLock<T>(_ body: ([ScenarioProgress]) -> T) -> T { list.withLock { body($0) } }
    var all: [ScenarioProgress] { list.withLock { $0 } }
}

/// Polls `condition` for up to 5 s of wall time, sleeping between polls.
func eventuallyTrue(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<5000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return false
}
