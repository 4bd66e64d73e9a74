import BuildInfo
import Foundation
import LiveSession
import ProviderVocabulary
import RecordingFormat

extension BackendSession {
    /// The header of a `--record` file of this session as it starts: the IDs its SDKs start on,
    /// its backend and settings, so a replay starts the dashboard as this session's would have.
    package func recordingHeader(_ options: BackendOptions, source: String, ticks: Bool) async -> RecordingHeader {
        var header = RecordingHeader(
            solution: solution, consumerID: await consumers.id(at: 0), driverID: await drivers.id(at: 0),
            members: recordedMembers(options), backend: backendDescription, command: CommandLine.arguments,
            source: source, tokendash: BuildInfo.version, ticks: ticks, start: Date())
        header.faultsAvailable = faults.canInject
        header.refreshMargin = options.refreshMargin
        header.updateInterval = options.updateInterval
        header.only = options.sdks.only?.rawValue
        header.insecure = insecure
        header.providerLogic = options.providerLogic == .tokendash ? nil : options.providerLogic.rawValue
        header.sources =
            sourceLabels.isEmpty
            ? nil : Dictionary(uniqueKeysWithValues: sourceLabels.map { ($0.key.rawValue, $0.value) })
        return header
    }

    /// Each kind's members in their SDKs' order, as every recording's header lists them.
    package func recordedMembers(_ options: BackendOptions) -> [ProviderKind: [String]] {
        [consumers.kind: options.initialIDs(consumers.kind), drivers.kind: options.initialIDs(drivers.kind)]
    }
}
