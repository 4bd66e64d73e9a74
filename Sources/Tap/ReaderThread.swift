import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one thread the tap's reader runs on, at a lower priority than the event loops: on a busy
/// machine the kernel runs the forwarding first and the reading in the time left over, so the
/// analysis never holds a client's answer up behind its CPU. Before it, the reader ran on Swift's
/// cooperative pool at the loops' own priority, in bursts of a batch's reading that took a core
/// from them (p99 added 1.4-1.5 ms at 2,000 requests a second on two cores, against 0.3 ms for the
/// bare proxy). A task executor (SE-0417): a task preferring it runs its jobs here, and so do the
/// nonisolated async functions and default actors it calls.
final class ReaderThread: TaskExecutor {
    /// How far below the process's the thread's priority is. Against a busy nice-0 thread, nice 10
    /// gets about a tenth of a core (the scheduler's weights 110 against 1024); on an idle core it
    /// runs at full speed, so at a normal load every exchange is still read.
    static let niceness: Int32 = 10

    // Guards the jobs waiting to run, whether the thread is to end once none wait, and whether it has.
    private let jobs = Mutex<(waiting: [UnownedJob], ending: Bool, ended: Bool)>(([], false, false))
    // Signalled once per job enqueued (and once to end): the thread sleeps only while none waits.
    private let wake = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in loop() }
        thread.name = "tap reader"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let queued = jobs.withLock { jobs in
            guard !jobs.ended else { return false }
            jobs.waiting.append(unowned)
            return true
        }
        if queued {
            wake.signal()
        } else {
            // Nothing of the reader's is left to run once it ended; a stray job still runs, on the pool.
            globalConcurrentExecutor.enqueue(ExecutorJob(unowned))
        }
    }

    /// Ends the thread once the jobs waiting have run.
    func end() {
        jobs.withLock { $0.ending = true }
        wake.signal()
    }

    private func loop() {
        Self.lowerPriority()
        let executor = asUnownedTaskExecutor()
        // Swapped with the queue's at each pass, so neither side allocates once both have grown.
        var batch: [UnownedJob] = []
        while true {
            let ended = jobs.withLock { jobs in
                swap(&batch, &jobs.waiting)
                if batch.isEmpty, jobs.ending { jobs.ended = true }
                return jobs.ended
            }
            if ended { return }
            if batch.isEmpty { wake.wait() }
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Lowers the calling thread's priority by `niceness` (to nice 19 at most).
    private static func lowerPriority() {
        #if os(Linux)
            // On Linux a nice value is a thread's own, and PRIO_PROCESS with `who` 0 names the calling thread.
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(which, 0)
            guard current != -1 || errno == 0 else { return }
            _ = setpriority(which, 0, min(19, current + niceness))
        #endif
    }
}
