import Faults
import ProviderVocabulary
import Synchronization

/// The faults currently switched on, one per provider kind at most. Read on every request,
/// switched by the dashboard or over HTTP, so it is a lock rather than an actor hop.
final class FaultBoard: Sendable {
    // Guards the active faults; read by request handlers, written by `set`/`clear`.
    private let active = Mutex<[ProviderKind: FaultSetting]>([:])

    func set(_ fault: FaultSetting?, for target: FaultTarget) {
        active.withLock { faults in
            for kind in target.kinds { faults[kind] = fault }
        }
    }

    func clear() { active.withLock { $0 = [:] } }

    func fault(for kind: ProviderKind) -> FaultSetting? { active.withLock { $0[kind] } }

    var all: [ProviderKind: FaultSetting] { active.withLock { $0 } }
}
