import Foundation
import ProviderVocabulary
import Synchronization
import TapForwarding
import TapReading
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The reader beside the forwarding: it runs below the event loops' priority and gives way after
/// each reading; when it falls behind, exchanges are dropped and counted while the forwarding goes
/// on unchanged.
@Suite(.timeLimit(.minutes(15))) struct TapReaderTests {
    static func exchange(_ target: String = "/healthz") -> TapExchange {
        TapExchange(method: "GET", target: target, status: 200, latency: 0.001, time: TestTime.t0)
    }

    /// The calling thread's nice value: on Linux each thread has its own.
    static func nice() -> Int32 {
        #if os(Linux)
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
            getpriority(PRIO_PROCESS, 0)
        #endif
    }

    @Test func theReaderRunsTenNiceLevelsBelowTheProcess() async {
        // Guards the nice values of the threads the sink ran on.
        let seen = Mutex<[Int32]>([])
        let analysis = TapAnalysis(
            reader: ExchangeReader(), churnLimit: 4, clock: ManualClock(TestTime.t0),
            sinks: [{ _ in seen.withLock { $0.append(Self.nice()) } }])
        let reading = Task { await analysis.run() }
        for _ in 0..<3 { analysis.submit(Self.exchange()) }
        analysis.finish()
        await reading.cancellingValue
        // Run at nice 19 already, the reader can go no lower (and the test would not notice it run at the loops').
        let lowered = min(19, Self.nice() + 10)
        #expect(seen.withLock { $0 } == Array(repeating: lowered, count: 3))
    }

    /// What the reader did, in order, reading one batch of three with `turn`: each reading
    /// handed on, each time it gave way.
    static func steps(turn: Duration) async -> [String] {
        // Guards the steps seen, in order.
        let steps = Mutex<[String]>([])
        let analysis = TapAnalysis(
            reader: ExchangeReader(), churnLimit: 4, clock: ManualClock(TestTime.t0),
            sinks: [{ reading in steps.withLock { $0.append("read \(reading.status)") } }],
            giveWay: { steps.withLock { $0.append("gave way") } }, turn: turn)
        // Queued before the reader starts: one batch of three.
        for status in [200, 201, 202] {
            var exchange = Self.exchange()
            exchange.status = status
            analysis.submit(exchange)
        }
        analysis.finish()
        await analysis.run()
        return steps.withLock { $0 }
    }

    @Test func theReaderGivesWayWithinABatchOnceItsTurnIsUp() async {
        // A turn of nothing is up after every reading: the reader gives way inside the batch, not after it.
        #expect(
            await Self.steps(turn: .zero) == [
                "read 200", "gave way", "read 201", "gave way", "read 202", "gave way",
            ])
    }

    @Test func theReaderKeepsItsCoreUntilItsTurnIsUp() async {
        // Three readings take far less than an hour: the reader never stops to give way.
        #expect(await Self.steps(turn: .seconds(3600)) == ["read 200", "read 201", "read 202"])
    }

    @Test func aFullQueueDropsExchangesAndLeavesTheForwardingAsItWas() async throws {
        let backend = try ScriptedBackend(script: ForwardingTests.script)
        defer { backend.stop() }
        // A short queue: what is tested is the bound, not how long 65,536 readings take in a debug build.
        let bound = 64
        let analysis = TapAnalysis(
            reader: ExchangeReader(), churnLimit: 4, clock: ManualClock(TestTime.t0), queueBound: bound)
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: analysis.submit)
        // A reader that has not kept up: the queue is full before the client asks.
        for _ in 0..<bound { analysis.submit(Self.exchange()) }
        let request = "GET /token/consumer/trip-1 HTTP/1.1\r\nHost: tokens.example\r\nConnection: close\r\n\r\n"
        let direct = try RawHTTP.exchange(port: Int(backend.port), request)
        let tapped = try RawHTTP.exchange(port: tap.port, request)
        await tap.stop()
        #expect(tapped.statusLine == direct.statusLine)
        #expect(tapped.body == direct.body && !direct.body.isEmpty)
        // The tap reports an exchange after it has written the answer, so the client may have it first.
        #expect(await eventually { analysis.droppedCount == 1 })
        // The reader catches up with everything it kept.
        let reading = Task { await analysis.run(on: globalConcurrentExecutor) }
        analysis.finish()
        await reading.cancellingValue
        #expect(analysis.exchangeCount == bound)
    }
}
