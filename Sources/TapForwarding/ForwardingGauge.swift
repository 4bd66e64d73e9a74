import Synchronization

/// How much of an answer the tap holds for clients slower than the upstream: the most bytes ever
/// waiting in one client connection's outbound buffer, and how often reading the upstream paused
/// for a client that could take no more. What shows the forwarding keeps memory bounded.
public final class ForwardingGauge: Sendable {
    private let peak = Atomic<Int>(0)
    private let pauseCount = Atomic<Int>(0)

    public init() {}

    /// The most answer bytes one client connection has had queued at once.
    public var peakBufferedBytes: Int { peak.load(ordering: .relaxed) }
    /// Times the tap stopped reading an upstream until its client caught up.
    public var pauses: Int { pauseCount.load(ordering: .relaxed) }

    func buffered(_ bytes: Int) { peak.max(bytes, ordering: .relaxed) }
    func paused() { pauseCount.add(1, ordering: .relaxed) }
}
