import Dashboard
import DashboardRuntime
import Foundation
import HeadlessCommands
import ProviderVocabulary
import Recording
import RecordingFormat
import TapReading
import Terminal
import UICore

/// The tap's dashboard: the real devices' exchanges as provider events, one fleet table row per
/// real ID (learnt as it asks), `/` filtering and Enter following one ID as for a simulated fleet.
/// Made before the tap listens, so its event reader misses no exchange.
struct TapDashboard: Sendable {
    let state: DashboardState
    let source: LiveEventSource
    let catalog: ThemeCatalog
    let theme: Theme
    let noColor: Bool

    init(
        analysis: TapAnalysis, churnLimit: Double, solution: ProviderKind.Solution, backend: String,
        environment: [String: String]
    ) {
        catalog = ThemeCatalog.standard(explicit: nil, environment: environment, executable: CommandLine.arguments[0])
        theme =
            (try? catalog.load(ThemeCatalog.initialThemeName(requested: nil, environment: environment)))
            ?? Theme(name: "default", styles: [:])
        noColor = ThemeCatalog.noColor(requested: nil, environment: environment)
        state = Self.firstState(solution: solution, backend: backend, theme: theme, themeNames: catalog.names)
        var source = LiveEventSource(broadcaster: analysis.events, learning: solution.kinds)
        source.marks = TapTableMarks(churnLimit: churnLimit, unread: { analysis.droppedCount })
        self.source = source
    }

    /// The dashboard before any exchange: two fleets of IDs yet to be seen.
    static func firstState(
        solution: ProviderKind.Solution, backend: String, theme: Theme = Theme(name: "default", styles: [:]),
        themeNames: [String] = ["default"]
    ) -> DashboardState {
        var state = DashboardState(
            consumerID: "", driverID: "", now: Date(), backend: backend, faultsAvailable: false, theme: theme,
            themeNames: themeNames, refreshMargin: 0,
            trips: TapFleet.size, vehicles: TapFleet.size, solution: solution)
        state.learnMembers()
        return state
    }

    /// `backend`: what the header says once the tap listens (the port bound when `--listen` asked for 0).
    func run(
        recorder: RecordingWriter?, duration: Double?, backend: String,
        nextSignal: @escaping @Sendable () async -> Int32?
    ) async {
        var state = state
        state.session.backend = backend
        let inbox = ActionInbox()
        let tail = EventTail()
        var source = source
        source.tail = tail
        let events = Task { [source] in await source.run(into: inbox) }
        let catalog = catalog
        let snapshots = SnapshotWriter(
            recording: recorder.map { URL(fileURLWithPath: $0.path) }, tail: tail, version: TokenDash.version)
        let performer = TapEffectPerformer(source: source, snapshots: snapshots) { name in
            do { return .themeLoaded(try catalog.load(name)) } catch { return .message("theme \(name): \(error)") }
        }
        let theme = theme
        let noColor = noColor
        await TerminalBootstrap.run(
            state: state, inbox: inbox, performer: performer, recorder: recorder,
            nextSignal: {
                guard let duration else { return await nextSignal() }
                return await withTaskGroup(of: Int32?.self) { group in
                    group.addTask {
                        try? await Task.sleep(for: .seconds(duration))
                        return SIGTERM
                    }
                    group.addTask { await nextSignal() }
                    defer { group.cancelAll() }
                    return await group.next() ?? nil
                }
            }, terminal: { TerminalScreen(theme: theme, noColor: noColor, mouse: true) })
        events.cancel()
    }
}

extension TapDashboard: TapScreen {
    func recordingHeader(members: [ProviderKind: [String]], churnLimit: Double) -> RecordingHeader {
        RecordingHeader(
            state: state, members: members, command: CommandLine.arguments, source: "dashboard",
            tokendash: TokenDash.version, ticks: true, start: Date(), churnLimit: churnLimit)
    }
}
