import KeyTable
import UICore

extension DashboardState {
    /// The keys that work now, in the order the footer and the help show them: fleet keys in a
    /// fleet, a replay's keys in a replay, scenario keys as far as the run's scenarios go.
    var activeKeys: [KeyBinding] {
        viewer.display.keys.visible(fleet: session.isFleet, replay: viewer.replay != nil, scenarios: scenarioKeys)
    }

    /// What `key` does now, by the same rules.
    func command(for key: Key) -> Command? {
        viewer.display.keys.command(
            for: key, fleet: session.isFleet, replay: viewer.replay != nil, scenarios: scenarioKeys)
    }
}
