import Dashboard
import DashboardRuntime
import FleetAuth
import Foundation
import Scenarios

/// The dashboard's one scenario at a time: starts it from the S menu or `--scenario`, passes
/// Space, pause, restart and stop on, and turns the runner's progress into banner actions.
actor ScenarioController {
    let catalog: ScenarioCatalog
    let target: LiveScenarioTarget
    let events: EventBroadcaster
    let inbox: ActionInbox
    /// `--step`: every scenario of the run waits for Space before each step.
    let stepMode: Bool
    private var runner: ScenarioRunner?

    init(catalog: ScenarioCatalog, session: BackendSession, inbox: ActionInbox, stepMode: Bool) {
        self.catalog = catalog
        self.events = session.events
        self.inbox = inbox
        self.stepMode = stepMode
        // What a step changes outside the event stream reaches the header as the keys' changes do.
        target = LiveScenarioTarget(server: session.server, consumers: session.consumers, drivers: session.drivers) { change in
            switch change {
            case .faults(let faults): inbox.send(.faultsChanged(faults.mapValues(EffectRunner.choice)))
            case .paused(let paused): inbox.send(.sdksPaused(paused))
            }
        }
    }

    /// The S menu's entries.
    nonisolated var entries: [ScenarioEntry] { catalog.scenarios.map { ScenarioEntry(name: $0.name, description: $0.description) } }

    func start(_ name: String) async -> [Action] {
        guard let scenario = catalog.scenario(named: name) else { return [.message("no scenario named \(name)")] }
        if let problem = LiveScenarioTarget.problem(running: scenario, embeddedServer: target.server != nil) { return [.message(problem)] }
        await runner?.stop()
        let (inbox, events) = (self.inbox, self.events)
        let runner = ScenarioRunner(scenario: scenario, target: target, events: { events.subscribe() }, stepMode: stepMode) { progress in
            inbox.send(.scenario(Self.banner(progress)))
        }
        self.runner = runner
        await runner.start()
        return []
    }

    func control(_ control: ScenarioControl) async -> [Action] {
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

    func stop() async { await runner?.stop() }

    /// The banner for `progress`; nil once stopped.
    static func banner(_ progress: ScenarioProgress) -> ScenarioBanner? {
        let phase: ScenarioBanner.Phase
        switch progress.status {
        case .running: phase = .running
        case .waiting(let event): phase = .waiting(event)
        case .paused: phase = .paused
        case .awaitingStep: phase = .awaitingStep
        case .finished(let ending): phase = .finished(ending: ending)
        case .stopped: return nil
        }
        return ScenarioBanner(name: progress.name, step: progress.step, count: progress.count, caption: progress.caption,
                              phase: phase, stepMode: progress.stepMode, note: progress.note)
    }
}
