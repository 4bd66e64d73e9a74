import Dashboard
import Foundation
import ProviderEvents
import ProviderVocabulary
import Scenarios

/// The dashboard's one scenario at a time: starts it from the S menu or `--scenario`, passes
/// Space, pause, restart and stop on, and turns the runner's progress into banner actions.
public actor ScenarioController {
    public nonisolated let catalog: ScenarioCatalog
    let target: any ScenarioTarget
    /// Steps that change the server are refused without it.
    let embeddedServer: Bool
    let events: EventBroadcaster
    let inbox: ActionInbox
    /// `--step`: every scenario of the run waits for Space before each step.
    let stepMode: Bool
    let clock: any SleepingClock
    private var runner: ScenarioRunner?

    public init(
        catalog: ScenarioCatalog, target: any ScenarioTarget, embeddedServer: Bool, events: EventBroadcaster,
        inbox: ActionInbox, stepMode: Bool, clock: any SleepingClock = SystemClock()
    ) {
        self.catalog = catalog
        self.target = target
        self.embeddedServer = embeddedServer
        self.events = events
        self.inbox = inbox
        self.stepMode = stepMode
        self.clock = clock
    }

    /// The S menu's entries.
    public nonisolated var entries: [ScenarioEntry] {
        catalog.scenarios.map { ScenarioEntry(name: $0.name, description: $0.description) }
    }

    public func start(_ name: String) async -> [Action] {
        guard let scenario = catalog.scenario(named: name) else { return [.message("no scenario named \(name)")] }
        if let problem = scenario.problem(embeddedServer: embeddedServer) { return [.message(problem)] }
        await runner?.stop()
        let (inbox, events) = (self.inbox, self.events)
        let runner = ScenarioRunner(
            scenario: scenario, target: target, events: { events.subscribe() }, clock: clock,
            stepMode: stepMode,
            progress: { progress in
                inbox.send(.scenario(Self.banner(progress)))
            }
        )
        self.runner = runner
        await runner.start()
        return []
    }

    public func control(_ control: ScenarioControl) async -> [Action] {
        guard let runner else { return [.message("no scenario is running; S lists them")] }
        switch control {
        case .advance: await runner.advance()
        case .togglePause: await runner.togglePause()
        case .restart: await runner.restart()
        case .stop:
            await runner.stop()
            self.runner = nil
            return [.scenario(nil)]
        }
        return []
    }

    public func stop() async { await runner?.stop() }

    /// The banner for `progress`; nil once stopped.
    public static func banner(_ progress: ScenarioProgress) -> ScenarioBanner? {
        let phase: ScenarioBanner.Phase
        switch progress.status {
        case .running: phase = .running
        case .waiting(let event): phase = .waiting(event)
        case .paused: phase = .paused
        case .awaitingStep: phase = .awaitingStep
        case .finished(let ending): phase = .finished(ending: ending)
        case .stopped: return nil
        }
        return ScenarioBanner(
            name: progress.name, step: progress.step, count: progress.count, caption: progress.caption,
            phase: phase, stepMode: progress.stepMode, note: progress.note)
    }
}
