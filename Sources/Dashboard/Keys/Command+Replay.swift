import KeyTable

extension Command {
    /// What a replay key asks of the replay source; nil for every other command.
    public var replayControl: ReplayControl? {
        switch self {
        case .replayPause: .togglePause
        case .replayStep: .step
        case .replayBack: .seek(-KeyBinding.seekStep)
        case .replayForward: .seek(KeyBinding.seekStep)
        case .replayStart: .toStart
        case .replayEnd: .toEnd
        case .replaySpeed: .nextSpeed
        case .focusNext, .refreshFocused, .refreshBoth, .newTrip, .newVehicle, .typeID, .faultMenu, .clearFaults,
            .toggleReveal, .togglePause, .nextTheme, .help, .nextFleetMember, .previousFleetMember, .quit, .zoomIn,
            .zoomOut, .copyToken, .nextTrouble, .previousTrouble, .selectUp, .selectDown, .followSelected,
            .filterTable, .mark, .freeze, .snapshot, .scenarioMenu, .scenarioStep, .scenarioPause,
            .menuUp, .menuDown, .menuChoose, .menuClose, .faultScope, .latencyDown, .latencyUp:
            nil
        }
    }
}
