import Foundation
import ProviderEvents
import ProviderVocabulary

/// Runs a scenario's steps against a target: at their times (or one per `advance()` in step
/// mode), pausable, restartable, reporting every change of step, caption and status.
///
/// Time is the scenario's own: it stands still while paused, so a paused demo resumes where it
/// was. `until:` steps watch the provider events, counting those since the step before began,
/// so an event that follows the previous step's action at once is not missed.
public actor ScenarioRunner {
    public nonisolated let scenario: Scenario
    public nonisolated let stepMode: Bool
    private let target: any ScenarioTarget
    private let clock: any SleepingClock
    private let subscribe: @Sendable () -> AsyncStream<ProviderEvent>
    private let report: @Sendable (ScenarioProgress) -> Void
    /// Events kept for `until:` steps; the oldest go first.
    static let logLimit = 10_000
    /// The longest single sleep: how late a pause or a skip is noticed, at most.
    private let tick: TimeInterval

    public private(set) var progress: ScenarioProgress
    /// Bumped by every start, restart and stop: a run whose generation is old stops at its next turn.
    private var generation = 0
    private var runTask: Task<Void, Never>?
    private var eventTask: Task<Void, Never>?

    // Scenario time: what ran before the last pause, and since when it has run again.
    private var banked: TimeInterval = 0
    private var runningSince: Date?
    private var statusBeforePause: ScenarioProgress.Status = .running
    private var resumeWaiters: [CheckedContinuation<Void, Never>] = []
    /// When the step being waited for is due, in scenario time; a skip jumps to it.
    private var currentDue: TimeInterval?

    private var advances = 0
    private var advanceWaiter: CheckedContinuation<Void, Never>?

    // Events since the step before the current one began: `log[0]` is event number `logBase`.
    private var log: [ProviderEvent] = []
    private var logBase = 0
    private var previousStepStart = 0
    private var currentStepStart = 0
    private var untilWaiter: (condition: ScenarioCondition, id: Int, continuation: CheckedContinuation<Bool, Never>)?
    private var waitCount = 0
    /// The `until:` steps of this run that timed out: the ending cannot claim them.
    private var gaveUp: [String] = []
    private var doneWaiters: [CheckedContinuation<Void, Never>] = []

    /// `events` subscribes to the provider events (e.g. `EventBroadcaster.subscribe`), once per runner.
    public init(
        scenario: Scenario, target: any ScenarioTarget, events: @escaping @Sendable () -> AsyncStream<ProviderEvent>,
        clock: any SleepingClock = SystemClock(), stepMode: Bool = false, tick: TimeInterval = 0.25,
        progress: @escaping @Sendable (ScenarioProgress) -> Void
    ) {
        self.scenario = scenario
        self.target = target
        self.subscribe = events
        self.clock = clock
        self.stepMode = stepMode
        self.tick = tick
        self.report = progress
        self.progress = ScenarioProgress(
            name: scenario.name, step: 0, count: scenario.steps.count, caption: nil,
            status: .running, stepMode: stepMode)
    }

    // MARK: - Control

    /// Starts from the first step, with the target reset; also what `restart` does.
    public func start() {
        stopRun()
        let run = generation
        banked = 0
        runningSince = clock.now()
        advances = 0
        log = []
        logBase = 0
        previousStepStart = 0
        currentStepStart = 0
        gaveUp = []
        if eventTask == nil {
            let stream = subscribe()
            eventTask = Task { [weak self] in
                for await event in stream { await self?.received(event) }
            }
        }
        update {
            $0 = ScenarioProgress(
                name: scenario.name, step: 0, count: scenario.steps.count, caption: scenario.description,
                status: .running, stepMode: stepMode)
        }
        runTask = Task { await self.run(run) }
    }

    public func restart() { start() }

    /// Ends the run where it is; what the steps changed stays as it is.
    public func stop() {
        stopRun()
        eventTask?.cancel()
        eventTask = nil
        update { $0.status = .stopped }
        finishWaiters()
    }

    public func pause() {
        guard runningSince != nil, !isOver else { return }
        banked = elapsed()
        runningSince = nil
        statusBeforePause = progress.status
        update { $0.status = .paused }
    }

    public func resume() {
        guard runningSince == nil, !isOver else { return }
        runningSince = clock.now()
        update { $0.status = statusBeforePause }
        for waiter in resumeWaiters { waiter.resume() }
        resumeWaiters = []
    }

    public func togglePause() { if runningSince == nil { resume() } else { pause() } }

    /// Step mode: runs the next step. Otherwise skips the wait in progress: the next step's time,
    /// or an `until:`.
    public func advance() {
        guard !isOver else { return }
        if let waiter = untilWaiter {
            untilWaiter = nil
            update { $0.note = "skipped waiting for \(waiter.condition)" }
            waiter.continuation.resume(returning: true)
        } else if stepMode {
            if let waiter = advanceWaiter {
                advanceWaiter = nil
                waiter.resume()
            } else {
                advances += 1
            }
        } else if let currentDue {
            banked += max(0, currentDue - elapsed())
        }
    }

    /// Returns when the scenario has finished or been stopped.
    public func waitUntilDone() async {
        if isOver { return }
        await withCheckedContinuation { doneWaiters.append($0) }
    }

    public var isOver: Bool {
        switch progress.status {
        case .finished, .stopped: true
        default: false
        }
    }

    // MARK: - The run

    private func run(_ run: Int) async {
        await target.reset()
        var previousEnd: TimeInterval = 0
        for (index, step) in scenario.steps.enumerated() {
            if stepMode {
                await waitForAdvance(run)
            } else {
                let due: TimeInterval =
                    switch step.timing {
                    case .at(let at): at
                    case .after(let after): previousEnd + after
                    }
                await waitUntil(due, run)
            }
            // Paused in step mode: the step waits for the resume too.
            await waitWhilePaused(run)
            guard run == generation else { return }
            previousStepStart = currentStepStart
            currentStepStart = logBase + log.count
            log.removeFirst(max(0, min(log.count, previousStepStart - logBase)))
            logBase = max(logBase, previousStepStart)
            update { p in
                p.step = index + 1
                // A step without a caption keeps the one before: an until: step explains nothing new.
                if let caption = step.caption { p.caption = caption }
                p.status = .running
                p.note = nil
            }
            await perform(step.action, run)
            guard run == generation else { return }
            previousEnd = elapsed()
        }
        update { p in
            p.status = .finished(scenario.ending)
            // Said with the ending, which may claim what did not happen.
            p.note = gaveUp.isEmpty ? nil : "but it gave up waiting for \(gaveUp.joined(separator: ", "))"
        }
        // Nothing left to wait for: stop reading events (a restart subscribes again).
        eventTask?.cancel()
        eventTask = nil
        log = []
        finishWaiters()
    }

    private func perform(_ action: ScenarioAction, _ run: Int) async {
        switch action {
        case .say:
            break
        case .switchID(let side, let id):
            await target.switchID(side, to: id)
        case .setFault(let fault, let scope, let latency):
            await target.setFault(fault, scope, latencyMilliseconds: latency)
        case .clearFaults(let scope):
            await target.setFault(nil, scope, latencyMilliseconds: nil)
        case .refresh(let scope):
            await target.refresh(scope)
        case .serverClock(let offset):
            await target.setServerClockOffset(offset)
        case .tokenLifetime(let seconds):
            await target.setTokenLifetime(seconds)
        case .setPaused(let paused):
            await target.setPaused(paused)
        case .deviceClock(let offset):
            await target.setDeviceClockOffset(offset)
        case .until(let condition, let timeout):
            update { $0.status = .waiting(for: condition.description) }
            let matched = await waitFor(condition, timeout: timeout)
            guard run == generation else { return }
            // Paused while waiting, the banner keeps saying so; the next step waits for the resume.
            statusBeforePause = .running
            let paused = runningSince == nil
            update { p in
                p.status = paused ? .paused : .running
                if !matched { p.note = "gave up waiting for \(condition) after \(ScenarioDuration.format(timeout))" }
            }
            if !matched { gaveUp.append(condition.description) }
        }
    }

    // MARK: - Waiting

    private func elapsed() -> TimeInterval {
        banked + (runningSince.map { clock.now().timeIntervalSince($0) } ?? 0)
    }

    private func waitWhilePaused(_ run: Int) async {
        while runningSince == nil, run == generation {
            await withCheckedContinuation { resumeWaiters.append($0) }
        }
    }

    private func waitUntil(_ due: TimeInterval, _ run: Int) async {
        currentDue = due
        defer { currentDue = nil }
        while run == generation {
            await waitWhilePaused(run)
            let left = due - elapsed()
            guard left > 0, run == generation else { return }
            do { try await clock.sleep(for: min(left, tick)) } catch { return }
        }
    }

    private func waitForAdvance(_ run: Int) async {
        guard run == generation else { return }
        if advances > 0 {
            advances -= 1
            return
        }
        update { $0.status = .awaitingStep }
        await withCheckedContinuation { advanceWaiter = $0 }
    }

    /// Whether an event matching `condition` came (since the step before began) within `timeout`.
    private func waitFor(_ condition: ScenarioCondition, timeout: TimeInterval) async -> Bool {
        let from = max(0, previousStepStart - logBase)
        if log[min(from, log.count)...].contains(where: condition.matches) { return true }
        waitCount += 1
        let id = waitCount
        let deadline = elapsed() + timeout
        let timer = Task { [weak self] in await self?.timeOut(id, at: deadline) }
        defer { timer.cancel() }
        return await withCheckedContinuation { untilWaiter = (condition, id, $0) }
    }

    /// Ends wait `id` unanswered at `deadline`, in scenario time: a pause stops its timeout too.
    private func timeOut(_ id: Int, at deadline: TimeInterval) async {
        while untilWaiter?.id == id, !Task.isCancelled {
            if runningSince == nil {
                await withCheckedContinuation { resumeWaiters.append($0) }
                continue
            }
            let left = deadline - elapsed()
            if left <= 0 { return timedOut(id) }
            do { try await clock.sleep(for: min(left, tick)) } catch { return }
        }
    }

    private func received(_ event: ProviderEvent) {
        log.append(event)
        // A fleet publishes thousands of events a second: a long step keeps the newest only.
        if log.count > Self.logLimit {
            let dropped = log.count - Self.logLimit
            log.removeFirst(dropped)
            logBase += dropped
        }
        if let waiter = untilWaiter, waiter.condition.matches(event) {
            untilWaiter = nil
            waiter.continuation.resume(returning: true)
        }
    }

    private func timedOut(_ id: Int) {
        guard let waiter = untilWaiter, waiter.id == id else { return }
        untilWaiter = nil
        waiter.continuation.resume(returning: false)
    }

    // MARK: - Bookkeeping

    /// Ends the current run: bumps the generation and releases everything it might wait on.
    private func stopRun() {
        generation += 1
        runTask?.cancel()
        runTask = nil
        runningSince = runningSince ?? clock.now()
        for waiter in resumeWaiters { waiter.resume() }
        resumeWaiters = []
        advanceWaiter?.resume()
        advanceWaiter = nil
        untilWaiter?.continuation.resume(returning: false)
        untilWaiter = nil
    }

    private func finishWaiters() {
        for waiter in doneWaiters { waiter.resume() }
        doneWaiters = []
    }

    private func update(_ change: (inout ScenarioProgress) -> Void) {
        let before = progress
        change(&progress)
        if progress != before { report(progress) }
    }
}
