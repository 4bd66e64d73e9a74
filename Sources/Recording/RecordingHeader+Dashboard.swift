import Dashboard
import Fleet
import Foundation
import ProviderVocabulary
import RecordingFormat
import UICore

/// The dashboard's state as a recording's header holds it, and back.
extension RecordingHeader {
    /// The header of a recording of `state`, the dashboard's (or `watch`'s) state when it starts.
    public init(
        state: DashboardState, members: [ProviderKind: [String]], command: [String], source: String,
        tokendash: String, ticks: Bool, start: Date, churnLimit: Double? = nil
    ) {
        self.init(
            solution: state.consumer.kind == .consumer ? .onDemand : .lastMile, consumerID: state.consumer.id,
            driverID: state.driver.id, members: members, backend: state.backend, command: command, source: source,
            tokendash: tokendash, ticks: ticks, start: start)
        faultsAvailable = state.faultsAvailable
        refreshMargin = state.refreshMargin
        updateInterval = state.updateInterval
        only = state.only?.rawValue
        insecure = state.insecure
        providerLogic = state.providerLogic == .tokendash ? nil : state.providerLogic.rawValue
        self.churnLimit = churnLimit
        sources =
            state.sourceLabels.isEmpty
            ? nil : Dictionary(uniqueKeysWithValues: state.sourceLabels.map { ($0.key.rawValue, $0.value) })
    }

    /// A kind's members as the dashboard counts them; an empty list is a fleet learnt from the events (`tap`).
    static func fleetSize(_ ids: [String]?) -> Int {
        guard let ids else { return 1 }
        return ids.isEmpty ? TapFleet.size : ids.count
    }

    /// The dashboard as it was when the recording started, in the viewer's theme.
    public func initialState(theme: Theme = Theme(name: "default", styles: [:]), themeNames: [String] = ["default"])
        -> DashboardState
    {
        let ids = memberIDs
        var state = DashboardState(
            consumerID: consumerID, driverID: driverID, now: base.startDate, backend: backend,
            faultsAvailable: faultsAvailable, theme: theme, themeNames: themeNames,
            refreshMargin: refreshMargin, trips: Self.fleetSize(ids[solution.consumerKind]),
            vehicles: Self.fleetSize(ids[solution.driverKind]), solution: solution,
            only: only.flatMap(ProviderKind.Role.init(rawValue:)))
        state.updateInterval = updateInterval
        // A fleet learnt from the events (`tap`) counts the IDs seen, as live.
        if !ids.isEmpty, ids.values.allSatisfy(\.isEmpty) { state.learnMembers() }
        state.insecure = insecure
        // A logic this version does not know is shown as tokendash's rather than refusing the file.
        state.providerLogic = providerLogic.flatMap(ProviderLogic.init(rawValue:)) ?? .tokendash
        for (role, label) in sources ?? [:] {
            if let role = ProviderKind.Role(rawValue: role) { state.sourceLabels[role] = label }
        }
        return state
    }
}
