import KeyTable
import UICore

extension DashboardState {
    /// The keys that work now, in the order the footer and the help show them: fleet keys in a
    /// fleet, a replay's keys in a replay, scenario keys as far as the run's scenarios go; a tap's
    /// keys alone while watching real devices.
    var activeKeys: [KeyBinding] {
        let keys = viewer.display.keys.visible(
            fleet: session.isFleet, replay: viewer.replay != nil, replayFollows: watchesRealDevices,
            scenarios: scenarioKeys)
        return watchesRealDevices ? keys.filter { Self.actsOnRealDevices($0.command) } : keys
    }

    /// What `key` does now, by the same rules: a key not offered does nothing.
    func command(for key: Key) -> Command? {
        let command = viewer.display.keys.command(
            for: key, fleet: session.isFleet, replay: viewer.replay != nil, scenarios: scenarioKeys)
        guard let command, !watchesRealDevices || Self.actsOnRealDevices(command) else { return nil }
        return command
    }

    /// The members are real devices a tap learnt from their fetches (`learnMembers`): nothing on
    /// this screen makes, refreshes or breaks their tokens.
    public var watchesRealDevices: Bool { session.consumer.seenMembers != nil }

    /// What acts on a tap's screen: looking through the table and the followed ID, and the
    /// viewer's own keys, with a replay's. Refresh, faults, pause and scenarios act on simulated
    /// SDKs or the embedded server: on real devices they would do nothing, so they are refused.
    static func actsOnRealDevices(_ command: Command) -> Bool {
        switch command {
        case .refreshFocused, .refreshBoth, .newTrip, .newVehicle, .faultMenu, .clearFaults, .togglePause,
            .scenarioMenu, .scenarioStep, .scenarioPause, .faultScope, .latencyDown, .latencyUp:
            false
        default:
            true
        }
    }

    /// What a tap's key bar offers, of the keys that act: what an operator does here (follow,
    /// filter, trouble, the other kind's table, mark, freeze, snapshot, theme, help, quit), so the
    /// bar fits two lines at 80 columns. Stepping members, typing an ID, zoom, reveal and copy
    /// still act, and `?` lists them.
    static func offeredOnTap(_ command: Command) -> Bool {
        switch command {
        case .focusNext, .selectUp, .selectDown, .followSelected, .filterTable, .nextTrouble, .previousTrouble,
            .mark, .freeze, .snapshot, .nextTheme, .help, .quit, .replayPause, .replayStep, .replayBack,
            .replayForward, .replayStart, .replayEnd, .replaySpeed:
            true
        default:
            false
        }
    }
}
