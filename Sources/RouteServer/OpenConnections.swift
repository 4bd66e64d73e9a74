import NIOCore
import Synchronization

/// The connections open now and the requests being answered, for `stop`.
final class OpenConnections: Sendable {
    // Guards the open channels by identity, written as connections open and close, and whether
    // the server has stopped (a connection accepted just before is closed as it opens).
    private let channels = Mutex<(open: [ObjectIdentifier: any Channel], stopped: Bool)>(([:], false))
    private let inFlight = Atomic<Int>(0)

    var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }
    func began() { inFlight.add(1, ordering: .relaxed) }
    func ended() { inFlight.subtract(1, ordering: .relaxed) }

    /// False once the server has stopped: the caller closes the connection.
    func opened(_ channel: any Channel) -> Bool {
        channels.withLock { state in
            if !state.stopped { state.open[ObjectIdentifier(channel)] = channel }
            return !state.stopped
        }
    }

    func closed(_ channel: any Channel) {
        channels.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func closeAll() async {
        let open = channels.withLock { state in
            state.stopped = true
            return Array(state.open.values)
        }
        for channel in open {
            channel.closeSendingFIN()
            try? await channel.closeFuture.get()
        }
    }
}
