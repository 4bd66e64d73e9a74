import NIOCore
import Synchronization

/// An event loop as a task executor: a task preferring it runs its jobs on that loop's thread,
/// and so do the default actors and nonisolated async functions it calls (SE-0417). The
/// NIO version in use has no such executor of its own.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    private init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }

    // Guards one executor per loop, made on first use; the loops live as long as the process.
    private static let all = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])

    static func of(_ loop: any EventLoop) -> EventLoopTaskExecutor {
        all.withLock { executors in
            if let executor = executors[ObjectIdentifier(loop)] { return executor }
            let executor = EventLoopTaskExecutor(loop)
            executors[ObjectIdentifier(loop)] = executor
            return executor
        }
    }
}
