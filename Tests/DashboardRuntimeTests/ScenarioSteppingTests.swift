import Dashboard
import Faults
import Foundation
import ProviderEvents
import ProviderVocabulary
import Scenarios
import Synchronization
import TestSupport
import Testing
import UICore

@testable import DashboardRuntime

/// Records what the scenario did, in order.
final class StepLog: ScenarioTarget {
    // Guards the calls; appended by the runner's steps, read by the test.
    private let calls = Mutex<[String]>([])
    var all: [String] { calls.withLock { $0 } }
    private func record(_ call: String) { calls.withLock { $0.append(call) } }
    func switchID(_ side: ScenarioSide, to id: String?) { record("switch \(side.rawValue)") }
    func setFault(_ fault: Fault?, _ scope: RoleScope, latencyMilliseconds: Int?) {
        record("fault \(fault?.rawValue ?? "off")")
    }
    func refresh(_ scope: RoleScope) { record("refresh \(scope.rawValue)") }
    func setServerClockOffset(_ seconds: TimeInterval) {}
    func setDeviceClockOffset(_ seconds: TimeInterval) {}
    func setTokenLifetime(_ seconds: TimeInterval?) {}
    func setPaused(_ paused: Bool) {}
}

/// Space through the real loop, reducer, controller and runner: in `--step` mode each press
/// runs one step and the banner follows; nothing runs between presses.
@Suite(.timeLimit(.minutes(15))) struct ScenarioSteppingTests {
    @Test func spaceRunsOneStepPerPressAndTheBannerFollows() async throws {
        let scenario = try ScenarioParser.parse(
            """
            name: demo
            ending: all three done
            steps:
              - caption: first
                refresh: both
              - at: 1h
                caption: second
                fault: http500
              - caption: third
                switch: trip
            """, file: "demo.yaml")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let terminal = FakeTerminal(clock: clock)
        let inbox = ActionInbox()
        let target = StepLog()
        let controller = ScenarioController(
            catalog: ScenarioCatalog(scenarios: [scenario]), target: target, embeddedServer: true,
            events: EventBroadcaster(), inbox: inbox, stepMode: true)
        var state = DashboardState(
            consumerID: "trip-0001", driverID: "vehicle-0001", now: clock.now(), backend: "test", faultsAvailable: true)
        state.scenarios = controller.entries
        let loop = DashboardLoop(state: state, terminal: terminal, inbox: inbox, clock: clock) { effect in
            Task {
                let answer: [Action] =
                    switch effect {
                    case .startScenario(let name): await controller.start(name)
                    case .scenarioControl(let control): await controller.control(control)
                    default: []
                    }
                for action in answer { inbox.send(action) }
            }
        }
        loop.start()
        defer { loop.finish() }
        /// Turns the loop until `condition` holds on its state (the suite's time limit ends it).
        func turn(until condition: (DashboardState) -> Bool) async -> Bool {
            await eventually {
                _ = loop.step()
                return condition(loop.state)
            }
        }

        // S, Enter: the scenario starts and waits for the first Space.
        terminal.script = [.character("S"), .enter]
        #expect(await turn { $0.scenario?.phase == .awaitingStep && $0.scenario?.step == 0 })
        let resets = target.all.count
        for (press, caption) in ["first", "second", "third"].enumerated() {
            // A while without Space: nothing happens.
            for _ in 0..<20 { _ = loop.step() }
            #expect(target.all.count == resets + press)
            terminal.script = [.character(" ")]
            if press < 2 {
                #expect(
                    await turn { $0.scenario?.step == press + 1 && $0.scenario?.phase == .awaitingStep },
                    "after Space \(press + 1)")
                #expect(loop.state.scenario?.caption == caption)
            }
        }
        #expect(await turn { $0.scenario?.isFinished == true })
        #expect(loop.state.scenario?.phase == .finished(ending: "all three done"))
        #expect(Array(target.all.suffix(3)) == ["refresh both", "fault http500", "switch consumer"])
        // The frame shows the ending under the header.
        #expect(terminal.lastFrame?.lines[1].contains("✔ demo done: all three done") == true)
    }
}
