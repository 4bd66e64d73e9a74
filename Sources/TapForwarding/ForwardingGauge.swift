import Synchronization

/// How much of an answer the tap holds for clients slower than the upstream: the most bytes ever
/// waiting in one client connection's outbound buffer, and how often reading the upstream paused
/// for a client that could take no more. What shows the forwarding keeps memory bounded. And the
/// upstream connections the pools hold: open (idle ones included) and idle, as `--metrics` shows them.
public final class ForwardingGauge: Sendable {
    private let peak = Atomic<Int>(0)
    private let pauseCount = Atomic<Int>(0)
    private let open = Atomic<Int>(0)
    private let idle = Atomic<Int>(0)
    private let opened = Atomic<Int>(0)
    private let held = Atomic<Int>(0)
    private let stalled = Atomic<Int>(0)
    private let largestRead = Atomic<Int>(0)
    private let drained = Atomic<Int>(0)

    public init() {}

    /// The most answer bytes one client connection has had queued at once.
    public var peakBufferedBytes: Int { peak.load(ordering: .relaxed) }
    /// The most answer bytes one upstream read delivered (at most `UpstreamPool.maxRead`).
    public var largestUpstreamRead: Int { largestRead.load(ordering: .relaxed) }
    /// The most answer bytes that came in while reading was paused. Only an upstream's close does
    /// that: SwiftNIO then reads what the kernel holds to the end, paused or not, and the
    /// upstream socket's receive buffer (`UpstreamPool.receiveBuffer`) bounds it.
    public var mostReadWhilePaused: Int { drained.load(ordering: .relaxed) }
    /// Times the tap stopped reading an upstream until its client caught up.
    public var pauses: Int { pauseCount.load(ordering: .relaxed) }

    /// Times an upstream's read timeout came while reading it was paused for its client, and was
    /// not held against it: the client was slow, not the upstream.
    public var idleTimeoutsHeld: Int { held.load(ordering: .relaxed) }
    /// Clients closed for taking nothing of their answer for the client timeout.
    public var clientsStalled: Int { stalled.load(ordering: .relaxed) }

    /// Upstream connections open now, idle ones included.
    public var upstreamOpen: Int { open.load(ordering: .relaxed) }
    /// Upstream connections waiting in a pool for an exchange.
    public var upstreamIdle: Int { idle.load(ordering: .relaxed) }
    /// Upstream connections ever opened.
    public var upstreamOpened: Int { opened.load(ordering: .relaxed) }

    func openChanged(by change: Int) {
        open.add(change, ordering: .relaxed)
        if change > 0 { opened.add(change, ordering: .relaxed) }
    }
    func idleChanged(by change: Int) { idle.add(change, ordering: .relaxed) }
    func buffered(_ bytes: Int) { peak.max(bytes, ordering: .relaxed) }
    func upstreamRead(_ bytes: Int) { largestRead.max(bytes, ordering: .relaxed) }
    func readWhilePaused(_ bytes: Int) { drained.max(bytes, ordering: .relaxed) }
    func paused() { pauseCount.add(1, ordering: .relaxed) }
    func idleHeld() { held.add(1, ordering: .relaxed) }
    func clientStalled() { stalled.add(1, ordering: .relaxed) }
}
