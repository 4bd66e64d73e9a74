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
        RecordingHeader(
            state: state, members: recordedMembers(options), command: CommandLine.arguments, source: source,
            tokendash: TokenDash.version, ticks: ticks, start: Date())
    }
}
