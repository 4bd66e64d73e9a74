import Faults
import Foundation
import ProviderEvents
import ProviderVocabulary
import Scenarios
import Synchronization
import Testing
import TokenReading

/// Records each call with the clock's time, and signals it to `changes`.
final class RecordingTarget: ScenarioTarget {
    let clock: any SleepingClock
    let changes: Changes
    // Guards the calls: made from the runner's tasks, read by the test.
    private let calls = Mutex<[(String, TimeInterval)]>([])
    init(clock: any SleepingClock, changes: Changes) {
        self.clock = clock
        self.changes = changes
    }

    private func record(_ call: String) {
        let time = clock.now().timeIntervalSince1970
        calls.withLock { $0.append((call, time)) }
        changes.changed()
    }
    var names: [String] { calls.withLock { $0.map(\.0) } }
    func time(of call: String) -> TimeInterval? { calls.withLock { $0.last { $0.0 == call }?.1 } }

    func switchID(_ side: ScenarioSide, to id: String?) { record("switch \(side.rawValue) \(id ?? "next")") }
    func setFault(_ fault: Fault?, _ scope: RoleScope, latencyMilliseconds: Int?) {
        record("fault \(fault?.rawValue ?? "off") \(scope.rawValue)")
    }
    func refresh(_ scope: RoleScope) { record("refresh \(scope.rawValue)") }
    func setServerClockOffset(_ seconds: TimeInterval) { record("clock \(Int(seconds))") }
    func setDeviceClockOffset(_ seconds: TimeInterval) { record("device clock \(Int(seconds))") }
    func setTokenLifetime(_ seconds: TimeInterval?) { record("lifetime \(seconds.map { Int($0) } ?? 0)") }
    func setPaused(_ paused: Bool) { record(paused ? "pause" : "resume") }
}

/// No test here waits for wall time: the clock moves only when a test says (or, automatic, by the
/// runner's own sleeps), and a test waits for what the runner did (a call, a report, a sleep begun
/// or called off), signalled as it happens.
@Suite(.timeLimit(.minutes(15))) struct ScenarioRunnerTests {
    let resetCalls = ["fault off both", "clock 0", "device clock 0", "lifetime 0", "resume"]

    func scenario(_ steps: String) throws -> Scenario {
        try ScenarioParser.parse(
            "name: demo\ndescription: d\nending: \"Shown: all\"\nsteps:\n" + steps, file: "demo.yaml")
    }

    func runner(
        _ scenario: Scenario, automaticClock: Bool = false, stepMode: Bool = false,
        events: EventBroadcaster = EventBroadcaster()
    )
        -> (ScenarioRunner, RecordingTarget, ManualScenarioClock, Reports, Changes)
    {
        let changes = Changes()
        let clock = ManualScenarioClock(automatic: automaticClock, changes: changes)
        let target = RecordingTarget(clock: clock, changes: changes)
        let reports = Reports(changes: changes)
        let runner = ScenarioRunner(
            scenario: scenario, target: target, events: { events.subscribe() }, clock: clock,
            stepMode: stepMode, tick: 1,
            progress: { reports.append($0) }
        )
        return (runner, target, clock, reports, changes)
    }

    /// Waits for the run's end as reported, then for `waitUntilDone`: bounded, so a run that never
    /// ends fails the test instead of hanging it.
    func ended(
        _ runner: ScenarioRunner, _ reports: Reports, _ changes: Changes,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let ended = await changes.until("the run's end", sourceLocation: sourceLocation) {
            switch reports.last?.status {
            case .finished, .stopped: true
            default: false
            }
        }
        if ended { await runner.waitUntilDone() }
    }

    @Test func stepsRunAtTheirTimesAndTheEndingIsReported() async throws {
        let (runner, target, _, reports, changes) = runner(
            try scenario(
                """
                  - at: 2s
                    caption: first
                    refresh: both
                  - after: 5s
                    fault: http500
                  - at: 30s
                    caption: last
                    clear: faults
                """), automaticClock: true)
        await runner.start()
        await ended(runner, reports, changes)
        #expect(target.names == resetCalls + ["refresh both", "fault http500 both", "fault off both"])
        #expect(target.time(of: "refresh both") == 2)
        #expect(target.time(of: "fault http500 both") == 7)
        #expect(target.time(of: "fault off both") == 30)
        let shown = reports.all
        #expect(shown.map(\.step).contains(2))
        #expect(shown.contains { $0.step == 1 && $0.caption == "first" })
        // A step without a caption keeps the one before it.
        #expect(shown.contains { $0.step == 2 && $0.caption == "first" })
        #expect(shown.last?.status == .finished("Shown: all"))
        #expect(shown.last?.caption == "last")
    }

    @Test func stepModeRunsOneStepPerAdvance() async throws {
        let (runner, target, _, reports, changes) = runner(
            try scenario("  - at: 1h\n    refresh: both\n  - switch: trip\n"),
            automaticClock: true, stepMode: true)
        await runner.start()
        await changes.until("awaiting the first step") { reports.last?.status == .awaitingStep }
        #expect(target.names == resetCalls)
        await runner.advance()
        await changes.until("the first step run, awaiting the second") {
            target.names.count == resetCalls.count + 1
                && reports.last.map { $0.status == .awaitingStep && $0.step == 1 } ?? false
        }
        #expect(target.names.last == "refresh both")
        // The hour of the first step's at: is not waited for: the presenter sets the pace. (Every
        // sleep would move this clock; it still reads 0.)
        #expect(target.time(of: "refresh both") == 0)
        await runner.advance()
        await ended(runner, reports, changes)
        #expect(target.names.last == "switch consumer next")
    }

    @Test func pausedTimeDoesNotCount() async throws {
        let (runner, target, clock, reports, changes) = runner(
            try scenario("  - at: 0s\n    caption: go\n  - at: 100s\n    refresh: driver\n"))
        await runner.start()
        await changes.until("step 1 run, asleep toward step 2") { reports.last?.step == 1 && clock.sleeping == 1 }
        await runner.pause()
        #expect(reports.last?.status == .paused)
        // 1000 s of the clock pass while paused: the runner's sleep ends, the scenario's time stands.
        clock.advance(by: 1000)
        await runner.resume()
        // Had the paused time counted, step 2 would have run by now (at 1000 s); it sleeps again instead.
        await changes.until("asleep again, or step 2 run") {
            clock.sleeping == 1 || target.names.count > resetCalls.count
        }
        #expect(target.names == resetCalls)
        clock.advance(by: 100)
        await ended(runner, reports, changes)
        #expect(target.names == resetCalls + ["refresh driver"])
        // Due at 100 s of scenario time: 1000 s paused plus 100 s running.
        #expect(target.time(of: "refresh driver") == 1100)
    }

    @Test func untilWaitsForTheEventAndGivesUpAfterItsTimeout() async throws {
        let events = EventBroadcaster()
        let (runner, target, clock, reports, changes) = runner(
            try scenario(
                """
                  - refresh: driver
                  - until: fetch_started driver
                    timeout: 1h
                  - until: backing_off
                    timeout: 5s
                  - switch: vehicle
                """), events: events)
        await runner.start()
        await changes.until("waiting for fetch_started driver") {
            reports.last?.status == .waiting(for: "fetch_started driver")
        }
        // An event of the other side does not count.
        events.publish(
            ProviderEvent(time: Date(), provider: .consumer, id: "trip-1", kind: .fetchStarted(reason: .forced)))
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .fetchStarted(reason: .forced)))
        await changes.until("waiting for backing_off, its timeout asleep") {
            reports.last?.status == .waiting(for: "backing_off") && clock.sleeping == 1
        }
        // 4 of its 5 s: it still waits (its timeout sleeps again) ...
        clock.advance(by: 4)
        await changes.until("asleep again, or given up") { clock.sleeping == 1 || reports.last?.note != nil }
        #expect(reports.all.compactMap(\.note).isEmpty)
        // ... and at 5 s it gives up.
        clock.advance(by: 1)
        await ended(runner, reports, changes)
        #expect(target.names.suffix(2) == ["refresh driver", "switch driver next"])
        let notes = reports.all.compactMap(\.note)
        #expect(notes == ["gave up waiting for backing_off after 5s", "but it gave up waiting for backing_off"])
    }

    @Test func aPauseStopsAnUntilsTimeoutToo() async throws {
        let (runner, _, clock, reports, changes) = runner(
            try scenario("  - until: expired driver\n    timeout: 200s\n"))
        await runner.start()
        await changes.until("waiting for expired driver, its timeout asleep") {
            reports.last?.status == .waiting(for: "expired driver") && clock.sleeping == 1
        }
        await runner.pause()
        // The clock goes well past the timeout while paused: the timeout's sleep ends ...
        clock.advance(by: 1000)
        await runner.resume()
        // ... and, resumed, it sleeps again rather than giving up: the paused time did not count.
        await changes.until("asleep again, or given up") { clock.sleeping == 1 || reports.last?.note != nil }
        #expect(reports.all.compactMap(\.note).isEmpty)
        clock.advance(by: 200)
        await ended(runner, reports, changes)
        #expect(reports.all.dropLast().last?.note == "gave up waiting for expired driver after 3m20s")
        // The ending says so: it may claim what did not happen.
        #expect(reports.last?.note == "but it gave up waiting for expired driver")
    }

    @Test func anEventThatComesWhilePausedLeavesTheBannerPaused() async throws {
        let events = EventBroadcaster()
        let (runner, target, clock, reports, changes) = runner(
            try scenario("  - until: fetched driver\n    timeout: 1h\n  - refresh: both\n"),
            events: events)
        await runner.start()
        await changes.until("waiting for fetched driver, its timeout asleep") {
            reports.last?.status == .waiting(for: "fetched driver") && clock.sleeping == 1
        }
        await runner.pause()
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .forcedRefresh))
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .expired(at: Date())))
        // A fetched event ends the wait (its timeout, asleep on the clock, is called off), but the
        // scenario stays paused until resumed.
        let jwt = try JWTInspector.decode("eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjF9.c2ln")
        let token = FetchedToken(token: "x", id: "v-1", expiresAt: Date(), receivedAt: Date(), jwt: jwt)
        events.publish(ProviderEvent(time: Date(), provider: .driver, id: "v-1", kind: .fetched(token, latency: 0)))
        await changes.until("the wait's timeout called off") { clock.sleeping == 0 }
        // The runner handles the end of the wait in one turn of its actor, from calling the timeout
        // off to where it waits for the resume (or to the next step's report, had it gone on): its
        // progress is read after that turn.
        let progress = await runner.progress
        #expect(progress.step == 1 && progress.status == .paused)
        #expect(target.names == resetCalls)
        await runner.resume()
        await ended(runner, reports, changes)
        #expect(target.names.last == "refresh both")
        #expect(reports.all.compactMap(\.note).isEmpty, "the event ended the wait, not its timeout")
    }

    @Test func restartGoesBackToTheFirstStepWithTheTargetReset() async throws {
        let (runner, target, _, reports, changes) = runner(
            try scenario("  - fault: drop\n  - at: 1h\n    switch: trip\n"))
        await runner.start()
        await changes.until("the first step run") { target.names.contains("fault drop both") }
        await runner.restart()
        await changes.until("the first step run again") { target.names.filter { $0 == "fault drop both" }.count == 2 }
        #expect(target.names == resetCalls + ["fault drop both"] + resetCalls + ["fault drop both"])
        await runner.stop()
        #expect(reports.last?.status == .stopped)
    }
}

/// What a runner reported, in order; each report is signalled to `changes`.
final class Reports: Sendable {
    // Guards the reports; appended from the runner's actor, read by the test.
    private let list = Mutex<[ScenarioProgress]>([])
    private let changes: Changes?
    init(changes: Changes? = nil) { self.changes = changes }
    func append(_ progress: ScenarioProgress) {
        list.withLock { $0.append(progress) }
        changes?.changed()
    }
    var all: [ScenarioProgress] { list.withLock { $0 } }
    var last: ScenarioProgress? { list.withLock { $0.last } }
}
