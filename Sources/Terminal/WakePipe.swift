import Foundation

/// A pipe another thread writes a byte to, so the UI thread's wait for a key ends at once.
final class WakePipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            // Non-blocking both ways: a full pipe already means "wake up", and draining stops when empty.
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        }
        // Without a pipe (no fds left) the loop still works: it wakes at its key timeout instead.
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Holds the pipe: a waker called after the screen is gone (a task told to stop wakes the loop
    /// that has already left) writes to this pipe still open. Holding the descriptor alone, it
    /// wrote to a pipe whose read end was closed, and SIGPIPE ended tokendash as the logs screen quit.
    var wake: @Sendable () -> Void {
        { [self] in
            guard writeEnd >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }

    /// Waits until `fd` has input, a wake-up arrives, or `milliseconds` pass; then empties the pipe.
    func wait(forInputOn fd: Int32, milliseconds: Int) {
        var fds = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
        ]
        // EINTR (SIGWINCH on this thread, say) ends the wait early, which is what a resize wants.
        _ = poll(&fds, readEnd >= 0 ? 2 : 1, Int32(clamping: milliseconds))
        if readEnd >= 0, fds[1].revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(readEnd, &buffer, buffer.count) > 0 {}
        }
    }
}
