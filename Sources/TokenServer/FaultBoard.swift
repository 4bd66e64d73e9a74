import FleetAuth
import Synchronization

/// The faults currently switched on, one per provider kind at most. Read on every request,
/// switched by the dashboard or over HTTP, so it is a lock rather than an actor hop.
final class FaultBoard: Sendable {
    // Guards the active faults; read by request handlers, written by `set`/`clear`.
    private let active = Mutex<[ProviderKind: ServerFault]>([:])

    func set(_ fault: ServerFault?, for target: FaultTarget) {
        active.withLock { faults in
            for kind in target.kinds { faults[kind] = fault }
        }
    }

    func clear() { active.withLock { $0 = [:] } }

    func fault(for kind: ProviderKind) -> ServerFault? { active.withLock { $0[kind] } }

    var all: [ProviderKind: ServerFault] { active.withLock { $0 } }
}
