import Foundation
import NIOCore
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TapForwarding
import ThreadExecutor

/// Beside the forwarding: exchanges queue here without waiting (`submit` takes a lock for an append
/// and never blocks an event loop), one task reads them in order (`run`), keeps the per-ID ledger,
/// and hands each reading to the outputs: the provider events the dashboard and recordings read,
/// and `sinks` (watch lines, metrics). The reader runs on a thread of its own below the event
/// loops' priority (a `ThreadExecutor`, `readerPriority`) and takes what queued in batches,
/// resting `rest` when the queue is empty, so thousands of exchanges a second cost twenty
/// wake-ups, not thousands; it gives way after each `turn` of reading (`yieldCore`).
/// A full queue drops new exchanges and counts them: forwarding goes on.
public final class TapAnalysis: Sendable {
    /// Exchanges waiting to be read, at most: at 2,000 a second, half a minute of a stalled reader.
    public static let queueLimit = 1 << 16
    private let queueBound: Int

    public let reader: ExchangeReader
    public let events: EventBroadcaster
    private let sinks: [@Sendable (TappedExchange) -> Void]
    private let clock: any ProviderClock
    // Guards the exchanges waiting to be read, and whether more may come.
    private let queue = Mutex<(waiting: CircularBuffer<TapExchange>, finished: Bool)>((CircularBuffer(), false))
    /// A wake-up is dear beside a reading: each starts on caches the event loops have had. At
    /// 2,000 exchanges a second the reader cost 29-33 µs an exchange in the tap resting 10 ms and
    /// 22-24 µs resting 50 ms; once a reading cost less, resting 50 ms cost 13.1-14.2 µs, 100 ms
    /// 12.2-12.4 and 200 ms 11.7-12.2 (`tokendash-bench tap`, `TOKENDASH_BENCH_TAP_REST`). A
    /// reading 100 ms late is still well within the dashboard's second; the forwarding never
    /// waits for it.
    public static let rest: Duration = .milliseconds(100)
    /// How long the reader rests when it finds the queue empty: `rest` but in the bench, which compares.
    private let restFor: Duration
    /// How far below the event loops the reader's thread runs: on a busy machine the kernel gives
    /// the loops the larger share of the cores (at nice 10 a tenth of one against each loop), yet
    /// the reading still gets some, where `SCHED_IDLE` would starve it and drop every exchange.
    /// On an idle core nice 10 runs at full speed. Nice alone does not stop a running reader
    /// from holding a woken loop back: `yieldCore` does.
    static let readerPriority = ThreadExecutor.Priority.lowered(10)
    // Guards the ledger: written by the reading task, read by whoever shows rows (a second's table, the summary).
    private let ledger: Mutex<TapLedger>
    // Guards the count of exchanges dropped unread (the queue was full).
    private let dropped = Mutex(0)
    // Guards the count of exchanges read.
    private let read = Mutex(0)

    /// Called once the reader has read for `turn` since it last gave way: `yieldCore`, but in
    /// tests and the bench's `keep`.
    private let giveWay: @Sendable () -> Void
    /// How long the reader reads before it gives way: a loop woken meanwhile waits at most this
    /// and one reading. Giving way after every reading (a syscall, and a switch of threads when a
    /// loop is waiting) cost the reader about 1 µs of its 14 an exchange in the tap; a tenth of a
    /// millisecond is still a tenth of the p99 the tap may add.
    public static let turn: Duration = .microseconds(100)
    private let turnFor: Duration

    /// `queueBound`: `queueLimit` but in tests, which fill a short queue.
    public init(
        reader: ExchangeReader, churnLimit: Double, clock: any ProviderClock = SystemClock(),
        events: EventBroadcaster = EventBroadcaster(), sinks: [@Sendable (TappedExchange) -> Void] = [],
        giveWay: @escaping @Sendable () -> Void = TapAnalysis.yieldCore, queueBound: Int = TapAnalysis.queueLimit,
        rest: Duration = TapAnalysis.rest, turn: Duration = TapAnalysis.turn
    ) {
        restFor = rest
        turnFor = turn
        self.queueBound = queueBound
        self.giveWay = giveWay
        self.reader = reader
        self.clock = clock
        self.events = events
        self.sinks = sinks
        ledger = Mutex(TapLedger(churnLimit: churnLimit, slimTokens: true))
    }

    /// What the forwarder calls once an answer is written.
    @Sendable public func submit(_ exchange: TapExchange) {
        let kept = queue.withLock { queue in
            guard queue.waiting.count < queueBound else { return false }
            queue.waiting.append(exchange)
            return true
        }
        if !kept { dropped.withLock { $0 += 1 } }
    }

    /// Reads every exchange until `finish`; returns when the queue is empty. `executor` is where
    /// the reading runs: by default a thread of its own at `readerPriority`, ended on return (the
    /// bench passes others to compare: Swift's pool, a thread in `SCHED_IDLE`).
    public func run(on executor: (any TaskExecutor)? = nil) async {
        let thread = executor == nil ? ThreadExecutor(name: "tap reader", priority: Self.readerPriority) : nil
        // On a thread of its own the rest blocks that thread: `Task.sleep`'s timer went through
        // Dispatch's manager thread and back, two wake-ups a rest, 13% of the reader's time at
        // 2,000 exchanges a second. On an executor the caller gave, the rest is a task's sleep.
        let rest: @Sendable () async -> Void
        if thread == nil {
            rest = { [restFor] in try? await Task.sleep(for: restFor) }
        } else {
            let seconds = Double(restFor.components.seconds) + Double(restFor.components.attoseconds) / 1e18
            rest = { Self.blockThread(for: seconds) }
        }
        await withTaskExecutorPreference(executor ?? thread) { await readAll(rest: rest) }
        thread?.end()
    }

    /// Out of the async closure, which may not call `Thread.sleep` itself: on the reader's own
    /// thread, blocking it is the point.
    private static func blockThread(for seconds: Double) { Thread.sleep(forTimeInterval: seconds) }

    private func readAll(rest: @Sendable () async -> Void) async {
        // Swapped with the queue's at each pass: once both have grown, neither the loops' appends
        // nor the reader's takes allocate.
        var batch = CircularBuffer<TapExchange>()
        let clock = ContinuousClock()
        var turnStarted = clock.now
        while true {
            let finished = queue.withLock { queue in
                swap(&batch, &queue.waiting)
                return queue.finished
            }
            let idle = batch.isEmpty
            // Taken out of the batch, oldest first: a `for` over an array copied each exchange (a
            // retain and a release of each of its parts) before reading it, and reversing one to
            // pop from its end did as much again.
            while let exchange = batch.popFirst() {
                await analyse(exchange)
                let now = clock.now
                if now - turnStarted >= turnFor {
                    giveWay()
                    // From when the reader has its core back: the loops may have kept it a while.
                    turnStarted = clock.now
                }
            }
            if finished, idle { return }
            if idle { await rest() }
        }
    }

    private func analyse(_ exchange: TapExchange) async {
        var reading = await reader.read(exchange, now: clock.now())
        reading.fetchesPerToken = ledger.withLock { $0.record(reading) }
        read.withLock { $0 += 1 }
        // Made only for a reader (the dashboard, `--record`): two events with the token, per exchange.
        if events.isObserved { for event in reading.providerEvents { events.publish(event) } }
        for sink in sinks { sink(reading) }
    }

    /// Gives the core to whatever waits for it. A thread the kernel picked keeps its core against
    /// tasks that wake for the rest of its slice (Linux's EEVDF: 1.5 ms on two cores), however nice
    /// it is: a burst of readings held an event loop's answer up that long. At 2,000 requests a
    /// second on two cores the tap's p99 was 0.5-1.1 ms over the bare proxy's, and is 0.03-0.47 ms
    /// over it once the reader yields. Yielding after each `turn` of reading lets a woken loop in
    /// within a turn and one reading; with nothing waiting the thread goes straight on.
    @Sendable public static func yieldCore() { sched_yield() }

    /// No more exchanges: `run` reads what is queued and returns.
    public func finish() { queue.withLock { $0.finished = true } }

    public var droppedCount: Int { dropped.withLock { $0 } }
    public var exchangeCount: Int { read.withLock { $0 } }

    public func rows(filter: String = "") -> [TapRow] {
        let now = clock.now()
        return ledger.withLock { $0.rows(now: now, filter: filter) }
    }

    public func churning() -> [TapRow] {
        let now = clock.now()
        return ledger.withLock { $0.churning(now: now) }
    }
}
