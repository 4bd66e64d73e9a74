import ProviderEvents
import ProviderVocabulary
import Synchronization

/// The last provider events, for a snapshot (`s`): a ring the event source appends to, read
/// only when a snapshot is written. Kept as events, not lines: encoding waits for the rare read.
public final class EventTail: Sendable {
    public let capacity: Int
    private let ring: Mutex<Ring>

    private struct Ring {
        var events: [ProviderEvent] = []
        var next = 0
    }

    public init(capacity: Int = 200) {
        self.capacity = max(1, capacity)
        ring = Mutex(Ring())
    }

    public func record(_ event: ProviderEvent) {
        ring.withLock { ring in
            if ring.events.count < capacity {
                ring.events.append(event)
            } else {
                ring.events[ring.next] = event
            }
            ring.next = (ring.next + 1) % capacity
        }
    }

    /// Oldest first.
    public func events() -> [ProviderEvent] {
        ring.withLock { ring in
            ring.events.count < capacity ? ring.events : Array(ring.events[ring.next...] + ring.events[..<ring.next])
        }
    }
}
