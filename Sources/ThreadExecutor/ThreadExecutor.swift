import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A task executor (SE-0417) with one thread of its own: a task preferring it runs its jobs there,
/// and so do the nonisolated async functions and default actors it calls. Work on it waits only
/// for the CPU the kernel gives the thread, never behind the jobs queued on Swift's cooperative
/// pool, which has as many threads as the machine has cores.
///
/// Two users: the tap's reader, ten nice levels below the event loops, so the forwarding gets the
/// larger share of a busy machine's cores; and the tests that make thousands of
/// awaits, which on two loaded cores queued behind every other suite's jobs past their time limit.
public final class ThreadExecutor: TaskExecutor {
    // Guards the jobs waiting to run, whether the thread is to end once none wait, and whether it has.
    private let jobs = Mutex<(waiting: [UnownedJob], ending: Bool, ended: Bool)>(([], false, false))
    // Signalled once per job enqueued (and once to end): the thread sleeps only while none waits.
    private let wake = DispatchSemaphore(value: 0)

    /// How the thread is scheduled against the process's others.
    public enum Priority: Sendable {
        /// As the thread that made it.
        case inherited
        /// This many nice levels lower (to nice 19 at most). Against a busy nice-0 thread, nice 10
        /// gets about a tenth of a core (the scheduler's weights 110 against 1024); on an idle
        /// core it runs at full speed.
        case lowered(Int32)
        /// Linux's `SCHED_IDLE`: it runs only when no other thread of any priority wants the core.
        case idle
    }

    /// Starts the thread.
    public init(name: String, priority: Priority = .inherited) {
        let thread = Thread { [self] in
            Self.nameCurrentThread(name)
            loop(priority: priority)
        }
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let queued = jobs.withLock { jobs in
            guard !jobs.ended else { return false }
            jobs.waiting.append(unowned)
            return true
        }
        if queued {
            wake.signal()
        } else {
            // Nothing of the owner's is left to run once it ended; a stray job still runs, on the pool.
            globalConcurrentExecutor.enqueue(ExecutorJob(unowned))
        }
    }

    /// Ends the thread once the jobs waiting have run. An executor never ended keeps an idle thread
    /// parked on a semaphore, which costs nothing: a test's tasks may still enqueue after it returns.
    public func end() {
        jobs.withLock { $0.ending = true }
        wake.signal()
    }

    private func loop(priority: Priority) {
        switch priority {
        case .inherited: break
        case .lowered(let niceness): Self.lowerPriority(by: niceness)
        case .idle: Self.idle()
        }
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

    /// Names the calling thread as `top -H`, `ps -L` and perf show it; every thread of tokendash's
    /// own calls it first thing. Foundation's `Thread.name` set before `start()` never reached the
    /// kernel on Linux: the tap's reader showed as the dispatch thread that made it
    /// (`…root.default-qos`). Linux keeps 15 bytes of a name.
    public static func nameCurrentThread(_ name: String) {
        #if os(Linux)
            // Whole characters only: a cut inside one would leave a broken UTF-8 tail.
            var kept = ""
            for character in name {
                guard kept.utf8.count + character.utf8.count <= 15 else { break }
                kept.append(character)
            }
            // Glibc's module imports neither `pthread_setname_np` nor (variadic) `prctl`: the
            // kernel takes a thread's name written to its `comm` file as well.
            let fd = open("/proc/thread-self/comm", O_WRONLY)
            guard fd >= 0 else { return }
            _ = kept.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        #else
            Thread.current.name = name
        #endif
    }

    /// Lowers the calling thread's priority by `niceness` (to nice 19 at most).
    private static func lowerPriority(by niceness: Int32) {
        #if os(Linux)
            // On Linux a nice value is a thread's own, and PRIO_PROCESS with `who` 0 names the calling thread.
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(which, 0)
            guard current != -1 || errno == 0 else { return }
            _ = setpriority(which, 0, min(19, current + niceness))
        #endif
    }

    /// Puts the calling thread in `SCHED_IDLE` (Linux's policy 5, which Glibc's module does not name).
    private static func idle() {
        #if os(Linux)
            var parameters = sched_param()
            _ = pthread_setschedparam(pthread_self(), 5, &parameters)
        #endif
    }
}

/// Runs `body`, its child tasks and the actors it calls on a thread of its own. An unstructured
/// task started inside is not included unless made with `Task(executorPreference:)`.
public func onOwnThread<T: Sendable>(
    _ name: String, _ body: (ThreadExecutor) async throws -> T
) async rethrows -> T {
    let executor = ThreadExecutor(name: name)
    return try await withTaskExecutorPreference(executor) { try await body(executor) }
}
