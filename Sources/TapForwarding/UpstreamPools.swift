import NIOCore
import Synchronization

/// The pools of a tap's event loops, one each, made as a loop's first client connection arrives.
final class UpstreamPools: Sendable {
    private let upstream: Upstream
    private let limits: TapLimits
    private let gauge: ForwardingGauge
    // Guards the pools by event loop; each pool is touched only on its own loop.
    private let pools = Mutex<[ObjectIdentifier: NIOLoopBound<UpstreamPool>]>([:])

    init(upstream: Upstream, limits: TapLimits, gauge: ForwardingGauge) {
        self.upstream = upstream
        self.limits = limits
        self.gauge = gauge
    }

    /// The pool of `eventLoop`; called on that loop.
    func pool(on eventLoop: any EventLoop) -> UpstreamPool {
        pools.withLock { pools in
            if let pool = pools[ObjectIdentifier(eventLoop)] { return pool.value }
            let pool = UpstreamPool(eventLoop: eventLoop, upstream: upstream, limits: limits, gauge: gauge)
            pools[ObjectIdentifier(eventLoop)] = NIOLoopBound(pool, eventLoop: eventLoop)
            return pool
        }
    }
}
