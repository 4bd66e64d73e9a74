import Foundation

/// The write end of the self-pipe the signal handler writes to. Set once, before any handler is
/// installed, and only read afterwards (from the handler, which may run on any thread).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Turns SIGINT and SIGTERM into an awaitable event, so commands shut down cleanly instead of dying mid-write.
///
/// A classic self-pipe, not a Dispatch signal source: on Linux, libdispatch reads signals through
/// signalfd, which only sees a signal that stays pending, while the disposition must be SIG_IGN;
/// a signal the kernel hands to a thread that does not block it (AsyncHTTPClient's NIO threads,
/// made later) is then ignored and lost. Seen: SIGINT 50 ms after start left the dashboard running.
/// A real handler runs on whichever thread gets the signal and only calls write(2), which is
/// async-signal-safe; a thread of our own reads the pipe.
public final class SignalWatcher: Sendable {
    private let stream: AsyncStream<Int32>

    public init(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            // No pipe, no clean shutdown on signals: the default actions stay, which still end us.
            continuation.finish()
            return
        }
        signalPipeWriteEnd = fds[1]
        let readEnd = fds[0]
        for number in signals {
            SignalAction.install(number, flags: SA_RESTART) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
        }
        Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 {
                    continuation.yield(Int32(byte))
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }.start()
    }

    /// The next signal received.
    public func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }
}
