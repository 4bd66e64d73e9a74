import Dashboard
import DashboardRuntime
import Foundation
import LiveSession
import Recording

extension BackendSession {
    /// The header of a `--record` file of this session: `state` is the dashboard's first state
    /// (for `watch`, the one the dashboard would have started with), so a replay starts from it.
    func recordingHeader(_ options: BackendOptions, source: String, ticks: Bool, state: DashboardState? = nil) async
        -> RecordingHeader
    {
        var first: DashboardState
        if let state {
            first = state
        } else {
            first = DashboardState(
                consumerID: await consumers.id(at: 0), driverID: await drivers.id(at: 0), now: Date(),
                backend: backendDescription, faultsAvailable: faults.canInject, refreshMargin: options.refreshMargin,
                // The shard's slice (--shard), as the dashboard counts it.
                trips: options.initialIDs(consumers.kind).count, vehicles: options.initialIDs(drivers.kind).count,
                solution: solution)
            first.insecure = insecure
            first.updateInterval = options.updateInterval
            first.only = options.sdks.only
            first.providerLogic = options.providerLogic
            first.sourceLabels = sourceLabels
        }
        let members = [
            consumers.kind: options.initialIDs(consumers.kind), drivers.kind: options.initialIDs(drivers.kind),
        ]
        return RecordingHeader(
            state: first, members: members, command: CommandLine.arguments, source: source,
            tokendash: TokenDash.version, ticks: ticks, start: Date())
    }
}
