import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenProviders

/// A cache hit is served under a lock without the actor, counted, and published as counts.
@Suite(.timeLimit(.minutes(15))) struct CacheHitTests {
    let clock = ManualClock()

    func consumer(
        _ transport: FakeTransport, events: EventBroadcaster = EventBroadcaster(), margin: TimeInterval = 300,
        random: @escaping @Sendable () -> Double = { 0.5 }
    ) -> ConsumerTokenProvider {
        ConsumerTokenProvider(
            endpoint: consumerEndpoint(), transport: transport, refreshMargin: margin,
            clock: clock, events: events, random: random)
    }

    /// Every event until the broadcaster finishes (which publishes the counts still waiting).
    func drain(_ stream: AsyncStream<ProviderEvent>, finishing events: EventBroadcaster) async -> [ProviderEvent] {
        events.finish()
        return await stream.reduce(into: []) { $0.append($1) }
    }

    func hits(_ events: [ProviderEvent], id: String? = nil) -> (total: Int, events: Int) {
        events.reduce(into: (0, 0)) { sum, event in
            guard case .cacheHit(let count, _) = event.kind, id == nil || event.id == id else { return }
            sum.0 += count
            sum.1 += 1
        }
    }

    @Test func aHitNeverLeavesTheCallersExecutor() async throws {
        // A call that went into the provider actor would come back to the caller's executor as a
        // job; hits served under the lock alone give that executor no job at all.
        let transport = mintingTransport(kind: .consumer, clock: clock)
        let events = EventBroadcaster()
        let stream = events.subscribe()
        let provider = consumer(transport, events: events)
        let executor = CountingTaskExecutor()
        let (token, jobs) = try await withTaskExecutorPreference(executor) {
            let token = try await provider.fetchToken(for: trip("t"))
            let before = executor.jobs
            for _ in 0..<100 { #expect(try await provider.fetchToken(for: trip("t")) == token) }
            return (token, executor.jobs - before)
        }
        #expect(jobs == 0, "\(jobs) of 100 hits went through the actor")
        #expect(transport.count == 1)
        #expect(!token.isEmpty)
        #expect(hits(await drain(stream, finishing: events)).total == 100, "counted all the same")
    }

    @Test func aThousandHitsReachEveryReaderAsCounts() async throws {
        let events = EventBroadcaster()
        let a = events.subscribe()
        let b = events.subscribe()
        let transport = mintingTransport(kind: .consumer, clock: clock)
        let provider = consumer(transport, events: events)
        let token = try await provider.fetchToken(for: trip("t"))
        for _ in 0..<1000 {
            clock.advance(by: 0.001)
            #expect(try await provider.fetchToken(for: trip("t")) == token)
        }
        #expect(transport.count == 1)
        let lastHit = clock.now()
        let seenA = await drain(a, finishing: events)
        let seenB = await b.reduce(into: [ProviderEvent]()) { $0.append($1) }
        for seen in [seenA, seenB] {
            #expect(hits(seen).total == 1000)
            // Flushed at finish or by the timer: a few events, not one per hit.
            #expect((1...4).contains(hits(seen).events))
            #expect(seen.map(\.name).prefix(2) == ["fetch_started", "fetched"])
            #expect(seen.last?.time == lastHit, "a batch is timed at its last hit")
        }
    }

    @Test func concurrentHitsAreAllCounted() async throws {
        let events = EventBroadcaster()
        let stream = events.subscribe()
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock), events: events)
        _ = try await provider.fetchToken(for: trip("t"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<500 { _ = try await provider.fetchToken(for: trip("t")) } }
            }
            try await group.waitForAll()
        }
        #expect(hits(await drain(stream, finishing: events)).total == 4000)
    }

    /// Waiting counts are published when asked, or else by the broadcaster within its interval.
    @Test(arguments: [true, false])
    func countsArriveWhenAskedOrWithinTheInterval(asked: Bool) async throws {
        let events = EventBroadcaster(hitFlushInterval: asked ? .seconds(3600) : .milliseconds(20))
        let recorder = EventRecorder(events)
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock), events: events)
        _ = try await provider.fetchToken(for: trip("t"))
        for _ in 0..<7 { _ = try await provider.fetchToken(for: trip("t")) }
        if asked { events.flushCountedEvents() }
        let batch = try await recorder.next {
            if case .cacheHit = $0.kind { return true }
            return false
        }
        #expect(batch.kind == .cacheHit(count: 7, expiresAt: clock.now().addingTimeInterval(3600)))
    }

    @Test func hitsArePublishedBeforeTheEventThatEndsThem() async throws {
        let events = EventBroadcaster(hitFlushInterval: .seconds(3600))
        let stream = events.subscribe()
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock), events: events)
        _ = try await provider.fetchToken(for: trip("trip-1"))
        let firstExpiry = clock.now().addingTimeInterval(3600)
        for _ in 0..<300 { _ = try await provider.fetchToken(for: trip("trip-1")) }
        clock.advance(by: 10)
        _ = try await provider.fetchToken(for: trip("trip-2"))
        for _ in 0..<200 { _ = try await provider.fetchToken(for: trip("trip-2")) }
        _ = try await provider.forceRefresh()
        for _ in 0..<100 { _ = try await provider.fetchToken(for: trip("trip-2")) }
        let seen = await drain(stream, finishing: events)
        #expect(
            seen.map(\.name) == [
                "fetch_started", "fetched", "cache_hit", "id_changed", "cache_dropped", "fetch_started", "fetched",
                "cache_hit", "forced_refresh", "fetch_started", "fetched", "cache_hit",
            ])
        #expect(hits(seen, id: "trip-1") == (300, 1), "trip-1's hits come before the switch, under its ID")
        #expect(hits(seen, id: "trip-2") == (300, 2))
        #expect(seen[2].kind == .cacheHit(count: 300, expiresAt: firstExpiry), "with the token they were served from")
        #expect(seen[7].kind == .cacheHit(count: 200, expiresAt: firstExpiry.addingTimeInterval(10)))
    }

    @Test func noHitIsLostWhileIDsSwitchUnderLoad() async throws {
        let events = EventBroadcaster(hitFlushInterval: .milliseconds(1))
        let stream = events.subscribe(buffer: 1 << 16)
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock), events: events)
        let first = try await provider.fetchToken(for: trip("trip-1"))
        let firstExpiry = clock.now().addingTimeInterval(3600)
        // Later tokens expire later, so the batches of hits on the first one can be told apart.
        clock.advance(by: 10)
        // Callers hammer trip-1 while another moves the provider between trips. Every call that
        // came back with the first token was a hit on it, and each must be in a count published
        // under trip-1 with that token's expiry.
        let servedFirst = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var served = 0
                    for _ in 0..<300 {
                        if (try? await provider.fetchToken(for: trip("trip-1"))) == first { served += 1 }
                    }
                    return served
                }
            }
            group.addTask {
                for n in 0..<20 {
                    _ = try? await provider.fetchToken(for: trip(n % 2 == 0 ? "trip-2" : "trip-1"))
                    await Task.yield()
                }
                return 0
            }
            return try await group.reduce(0, +)
        }
        let seen = await drain(stream, finishing: events)
        let onFirst = seen.filter {
            if case .cacheHit(_, let expiresAt) = $0.kind { return expiresAt == firstExpiry }
            return false
        }
        #expect(servedFirst > 0)
        #expect(hits(onFirst).total == servedFirst)
        #expect(onFirst.allSatisfy { $0.id == "trip-1" })
        #expect(seen.contains { $0.name == "id_changed" })
    }

    @Test func nobodyListeningCountsNothing() async throws {
        let events = EventBroadcaster(hitFlushInterval: .seconds(3600))
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock), events: events)
        _ = try await provider.fetchToken(for: trip("t"))
        #expect(!events.isObserved)
        for _ in 0..<100 { _ = try await provider.fetchToken(for: trip("t")) }
        let stream = events.subscribe()
        #expect(events.isObserved)
        for _ in 0..<5 { _ = try await provider.fetchToken(for: trip("t")) }
        #expect(
            hits(await drain(stream, finishing: events)) == (5, 1),
            "hits served before anyone listened are not carried over")
        #expect(!events.isObserved)
    }

    @Test func aReaderThatGoesAwayIsNoLongerCounted() async throws {
        let events = EventBroadcaster()
        let stream = events.subscribe()
        #expect(events.isObserved)
        let reader = Task { for await _ in stream {} }
        reader.cancel()
        await reader.cancellingValue
        #expect(await eventually { !events.isObserved })
    }

    @Test func hitsAreServedFastWhileARefreshAheadIsInFlight() async throws {
        // Inside the margin with nothing in flight the call goes to the actor, which starts the
        // refresh-ahead and serves the old token; while that fetch is held, every call is a hit
        // and none starts another request.
        let gate = Gate()
        let requests = Mutex(0)
        let minting = mintingTransport(kind: .consumer, clock: clock, lifetime: 600)
        let transport = FakeTransport { request in
            if requests.withLock({
                $0 += 1
                return $0
            }) > 1 {
                await gate.wait()
            }
            return try await minting.send(request)
        }
        let events = EventBroadcaster(hitFlushInterval: .seconds(3600))
        let stream = events.subscribe()
        let provider = consumer(transport, events: events)
        let first = try await provider.fetchToken(for: trip("t"))
        clock.advance(by: 301)
        for _ in 0..<100 { #expect(try await provider.fetchToken(for: trip("t")) == first) }
        #expect(await provider.isFetching)
        #expect(transport.count == 2, "one refresh-ahead")
        await gate.open()
        #expect(await eventually { await provider.cachedToken?.token != first })
        #expect(try await provider.fetchToken(for: trip("t")) != first)
        let seen = await drain(stream, finishing: events)
        #expect(hits(seen).total == 101)
        #expect(transport.count == 2)
    }
}

/// Runs jobs on a serial queue and counts them: a call that suspends and resumes on it adds at least one.
final class CountingTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "CountingTaskExecutor")
    // Counts the jobs enqueued; read by the test while jobs run.
    private let enqueued = Atomic<Int>(0)

    var jobs: Int { enqueued.load(ordering: .sequentiallyConsistent) }

    func enqueue(_ job: consuming ExecutorJob) {
        enqueued.add(1, ordering: .sequentiallyConsistent)
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
