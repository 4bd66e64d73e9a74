import Dashboard
import DashboardRuntime
import Faults
import Fleet
import Foundation
import LiveSession
import ProviderVocabulary
import TokenServer

/// Performs the reducer's effects against the providers, the embedded server and the theme
/// files, and answers with actions. It keeps no state of its own: which member, which theme and
/// which fault travel in the effect, and what came of it goes back to the state.
struct EffectRunner: EffectPerformer {
    let session: BackendSession
    let catalog: ThemeCatalog
    /// The event source, whose fleet aggregate takes the member tables' filters.
    let events: LiveEventSource
    let snapshots: SnapshotWriter
    /// Runs the S menu's and `--scenario`'s scenarios.
    var scenarios: ScenarioController?

    init(
        session: BackendSession, catalog: ThemeCatalog, events: LiveEventSource, snapshots: SnapshotWriter,
        scenarios: ScenarioController? = nil
    ) {
        self.session = session
        self.catalog = catalog
        self.events = events
        self.snapshots = snapshots
        self.scenarios = scenarios
    }

    func perform(_ effect: Effect) async -> [Action] {
        switch effect {
        case .forceRefresh(let kind, let member):
            // A failure is already in the event stream, and so in the pane.
            await session.group(kind.role).forceRefresh(at: member)
            return []
        case .switchID(let kind, let id, let member):
            await session.group(kind.role).switchID(at: member, to: id)
            return []
        case .setFault(let choice, let scope, let latency):
            let faults = session.faults
            guard faults.canInject else {
                return [
                    .message("fault injection needs the embedded token server or a source provider (--driver-source)")
                ]
            }
            // The menu names panes; faults apply by kind, the kinds of this solution.
            await faults.set(choice, latencyMilliseconds: latency, for: FaultTarget(scope, in: session.solution).kinds)
            return [.faultsChanged(await faults.all().mapValues(\.fault))]
        case .setPaused(let paused):
            session.consumers.setPaused(paused)
            session.drivers.setPaused(paused)
            return []
        case .follow(let kind, let index):
            return [.following(kind, index: index, member: await session.group(kind.role).member(at: index))]
        case .findMember(let kind, let id, let from):
            return [.memberFound(kind, id: id, index: await session.group(kind.role).index(of: id), from: from)]
        case .queryTables(let filters):
            return events.tables(filters: filters)
        case .addMark(let mark):
            return [.marked(mark)]
        case .writeSnapshot(let request):
            return snapshots.write(request)
        case .loadTheme(let name):
            do { return [.themeLoaded(try catalog.load(name))] } catch { return [.message("theme \(name): \(error)")] }
        case .startScenario(let name):
            return await scenarios?.start(name) ?? []
        case .scenarioControl(let control):
            return await scenarios?.control(control) ?? []
        case .copyToClipboard, .replay:
            // The loop carries these out on the terminal's thread.
            return []
        }
    }
}
