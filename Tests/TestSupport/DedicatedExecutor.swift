import Dispatch
import Foundation
import Synchronization

/// A task executor with one thread of its own. A test that makes thousands of awaits (a property
/// run of a thousand ID switches) would queue each one behind every other suite's jobs on the
/// global pool, which has as many threads as the machine has cores: in a whole run on two loaded
/// cores that took it past its time limit, though it needs 2 s alone. On its own thread it waits
/// only for the CPU the kernel gives it, as any process would.
public final class DedicatedExecutor: TaskExecutor {
    // Guards the jobs waiting; appended by `enqueue` on any thread, taken by the executor's thread.
    private let jobs = Mutex<[UnownedJob]>([])
    // One signal per job queued.
    private let queued = DispatchSemaphore(value: 0)

    /// Starts the thread. It is never stopped: a task that still holds this preference may enqueue
    /// after the test that made it has returned, and an idle thread parked on a semaphore costs nothing.
    public init(name: String) {
        let thread = Thread { [self] in drain() }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        queued.signal()
    }

    private func drain() {
        while true {
            queued.wait()
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs `body`, its child tasks and the actors it calls on a thread of its own (`DedicatedExecutor`).
/// An unstructured task started inside is not included unless made with `Task(executorPreference:)`.
public func onOwnThread<T: Sendable>(
    _ name: String, _ body: (DedicatedExecutor) async throws -> T
) async rethrows -> T {
    let executor = DedicatedExecutor(name: name)
    return try await withTaskExecutorPreference(executor) { try await body(executor) }
}
