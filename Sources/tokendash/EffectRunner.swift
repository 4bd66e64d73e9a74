import Dashboard
import UICore
import Fleet
import FleetAuth
import Foundation
import Synchronization
import TokenServer

/// Performs the reducer's effects against the providers and the embedded server, and reports
/// their outcome back to the UI as actions.
final class EffectRunner: Sendable {
    let session: BackendSession
    let inbox: ActionInbox
    // Which fleet member each pane follows; written by `follow`, read by refresh and switch. Keyed
    // by side, so a pane's effects reach its group whichever solution runs.
    private let followed = Mutex<[ProviderKind.Role: Int]>([.consumer: 0, .driver: 0])

    init(session: BackendSession, inbox: ActionInbox) {
        self.session = session
        self.inbox = inbox
    }

    func perform(_ effect: Effect) async {
        switch effect {
        case .forceRefresh(let kind):
            let index = followed.withLock { $0[kind.role] ?? 0 }
            // A failure is already in the event stream, and so in the pane.
            await session.group(kind.role).forceRefresh(at: index)
        case .switchID(let kind, let id):
            let index = followed.withLock { $0[kind.role] ?? 0 }
            await session.group(kind.role).switchID(at: index, to: id)
        case .setFault(let choice, let scope):
            guard let server = session.server else {
                inbox.send(.message("fault injection needs the embedded token server"))
                return
            }
            // The menu names panes; the server's faults apply by kind, the kinds of this solution.
            let target: FaultTarget = switch scope {
            case .consumer: FaultTarget(session.solution.consumerKind)
            case .driver: FaultTarget(session.solution.driverKind)
            case .both: .both(session.solution)
            }
            await server.setFault(choice.map(Self.serverFault), for: target)
            let active = await server.faults().mapValues(\.label)
            inbox.send(.faultsChanged(active))
        case .setPaused(let paused):
            session.consumers.setPaused(paused)
            session.drivers.setPaused(paused)
        case .follow(let kind, let index):
            followed.withLock { $0[kind.role] = index }
            let id = await session.group(kind.role).id(at: index)
            inbox.send(.following(kind, index: index, id: id))
        case .loadTheme, .quit:
            // The UI thread owns the screen and handles these itself.
            break
        }
    }

    static func serverFault(_ choice: FaultChoice) -> ServerFault {
        switch choice {
        case .latency: .latency(milliseconds: ServerFault.defaultLatencyMilliseconds)
        case .http500: .http500
        case .malformed: .malformedJSON
        case .wrongID: .wrongID
        case .expired: .expired
        case .drop: .drop
        }
    }
}
