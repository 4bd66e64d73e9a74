import Dashboard
import DashboardRuntime
import Fleet
import FleetAuth
import Foundation
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
            guard let server = session.server else {
                return [.message("fault injection needs the embedded token server")]
            }
            // The menu names panes; the server's faults apply by kind, the kinds of this solution.
            let target: FaultTarget = switch scope {
            case .consumer: FaultTarget(session.solution.consumerKind)
            case .driver: FaultTarget(session.solution.driverKind)
            case .both: .both(session.solution)
            }
            await server.setFault(choice.map { Self.serverFault($0, latencyMilliseconds: latency) }, for: target)
            return [.faultsChanged(await server.faults().mapValues(Self.choice))]
        case .setPaused(let paused):
            session.consumers.setPaused(paused)
            session.drivers.setPaused(paused)
            return []
        case .follow(let kind, let index):
            return [.following(kind, index: index, member: await session.group(kind.role).member(at: index))]
        case .findMember(let kind, let id, let from):
            return [.memberFound(kind, id: id, index: await session.group(kind.role).index(of: id), from: from)]
        case .setTableFilter(let kind, let filter):
            return events.setTableFilter(filter, for: kind)
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
        case .quit, .copyToClipboard, .replay:
            // The loop carries these out on the terminal's thread.
            return []
        }
    }

    /// The menu's name for a fault the server reports: one name for each fault on the screen.
    static func choice(_ fault: ServerFault) -> FaultChoice {
        switch fault {
        case .latency: .latency
        case .http500: .http500
        case .http401: .http401
        case .rateLimited: .rateLimited
        case .malformedJSON: .malformed
        case .wrongID: .wrongID
        case .expired: .expired
        case .drop: .drop
        }
    }

    static func serverFault(_ choice: FaultChoice, latencyMilliseconds: Int) -> ServerFault {
        switch choice {
        case .latency: .latency(milliseconds: latencyMilliseconds)
        case .http500: .http500
        case .http401: .http401
        case .rateLimited: .rateLimited(retryAfterSeconds: FaultChoice.retryAfterSeconds)
        case .malformed: .malformedJSON
        case .wrongID: .wrongID
        case .expired: .expired
        case .drop: .drop
        }
    }
}
