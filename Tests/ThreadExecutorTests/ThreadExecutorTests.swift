import Testing
import ThreadExecutor

#if canImport(Glibc)
    import Glibc
#endif

/// The executor the tap's reader and the crowded tests run on: one thread of its own, scheduled as asked.
@Suite(.timeLimit(.minutes(15))) struct ThreadExecutorTests {
    /// Where the calling thread runs: which thread, its nice value and its scheduling policy.
    struct Place: Equatable, Sendable {
        var thread: UInt
        var nice: Int32
        var policy: Int32

        static func here() -> Place {
            #if os(Linux)
                Place(
                    thread: UInt(pthread_self()), nice: getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0),
                    policy: sched_getscheduler(0))
            #else
                Place(thread: 0, nice: getpriority(PRIO_PROCESS, 0), policy: 0)
            #endif
        }
    }

    /// Where a task preferring `executor` runs, three awaits apart.
    static func places(on executor: ThreadExecutor) async -> [Place] {
        await withTaskExecutorPreference(executor) {
            var seen: [Place] = []
            for _ in 0..<3 {
                seen.append(Place.here())
                await Task.yield()
            }
            return seen
        }
    }

    @Test func everyJobOfATaskPreferringItRunsOnItsOneThread() async {
        let executor = ThreadExecutor(name: "test")
        let seen = await Self.places(on: executor)
        #expect(Set(seen.map(\.thread)).count == 1)
        #if os(Linux)
            #expect(seen[0].thread != UInt(pthread_self()), "not the caller's thread")
        #endif
        executor.end()
    }

    #if os(Linux)
        /// The calling thread's name as the kernel has it (`top -H`, `ps -L`, perf).
        static func kernelName() -> String {
            let fd = open("/proc/thread-self/comm", O_RDONLY)
            guard fd >= 0 else { return "" }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).filter { $0 != "\n" }
        }

        @Test func itsThreadCarriesItsNameWhereTopAndPerfShowIt() async {
            let executor = ThreadExecutor(name: "tap reader")
            let long = ThreadExecutor(name: "a name past fifteen bytes")
            let names = await withTaskExecutorPreference(executor) { Self.kernelName() }
            let cut = await withTaskExecutorPreference(long) { Self.kernelName() }
            #expect(names == "tap reader")
            #expect(cut == "a name past fif", "Linux keeps 15 bytes")
            executor.end()
            long.end()
        }

        @Test func aLoweredThreadRunsThatManyNiceLevelsDown() async {
            let executor = ThreadExecutor(name: "test", priority: .lowered(3))
            let nice = await Self.places(on: executor).map(\.nice)
            // Run at nice 17 or more already, the thread can go only to 19.
            #expect(nice == Array(repeating: min(19, Place.here().nice + 3), count: 3))
            executor.end()
        }

        @Test func anIdleThreadRunsUnderSchedIdle() async {
            let executor = ThreadExecutor(name: "test", priority: .idle)
            let seen = await Self.places(on: executor)
            #expect(seen.map(\.policy) == [5, 5, 5], "SCHED_IDLE")
            #expect(Place.here().policy != 5, "the caller's own policy unchanged")
            executor.end()
        }
    #endif

    @Test func workEnqueuedAfterTheEndStillRuns() async {
        let executor = ThreadExecutor(name: "test")
        executor.end()
        // A task that still prefers an ended executor is not stranded: its jobs go to the pool.
        let ran = await Self.places(on: executor)
        #expect(ran.count == 3)
    }
}
