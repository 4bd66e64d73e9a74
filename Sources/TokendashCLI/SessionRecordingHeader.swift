import Dashboard
import Foundation
import HeadlessCommands
import LiveSession
import Recording
import RecordingFormat

extension BackendSession {
    /// The header of the dashboard's `--record` file: `state` is its first state, so a replay
    /// starts from it.
    func recordingHeader(_ options: BackendOptions, source: String, ticks: Bool, state: DashboardState) async
        -> RecordingHeader
    {
        let members = [
            consumers.kind: options.initialIDs(consumers.kind), drivers.kind: options.initialIDs(drivers.kind),
        ]
        return RecordingHeader(
            state: state, members: members, command: CommandLine.arguments, source: source,
            tokendash: TokenDash.version, ticks: ticks, start: Date())
    }
}
