import NIOCore
import Synchronization

/// Every channel a proxy holds open, on either side, so that stopping it ends them all (a pooled
/// client keeps tunnels open for ever) and the connections one client may hold are bounded.
public final class OpenChannels: Sendable {
    // Added by connection tasks as they open channels, removed as they end, read by stop.
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    public init() {}

    /// Holds `channel` as open; false when `limit` channels are open already.
    public func admit(_ channel: any Channel, limit: Int? = nil) -> Bool {
        open.withLock { open in
            if let limit, open.count >= limit { return false }
            open[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    public func release(_ channel: any Channel) {
        open.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes every channel still held.
    public func closeAll() async {
        for channel in open.withLock({ Array($0.values) }) { try? await channel.close() }
    }
}
