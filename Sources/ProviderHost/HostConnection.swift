import FleetAuth
import Foundation
import Spawning
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of the provider host: the child process, the line it reads requests from, and what
/// it says, as one stream. Its stdout is read as messages; its stderr is the class's own prints
/// and ThreadSanitizer's reports. Each pipe is read on a thread of its own, so a host that floods
/// or hangs holds no thread of Swift's pool; `terminate()` ends it whatever it is doing.
public final class HostConnection: Sendable {
    /// Something the host did.
    public enum Output: Sendable, Equatable {
        case message(HostMessage)
        /// A line the class printed (or the runtime did for it), not yet redacted.
        case printed(String)
        case race(RaceReport)
        /// More than `floodBytesPerSecond` on stderr within a second: the host is to be killed.
        case flooding
        /// The process ended: its exit status, or 128 + the signal that killed it.
        case exited(Int32)
    }

    public let pid: pid_t
    public let outputs: AsyncStream<Output>
    private let input: Int32
    // Set once the input is closed, so a write after terminate() is not made to a reused descriptor.
    private let closed = Mutex(false)

    /// What a host may print a second before it is taken for a flood and killed.
    public static let floodBytesPerSecond = 1 << 20
    /// The longest line kept from stderr; the rest of it is dropped.
    static let lineLimit = 4096

    /// Starts `executable` with ThreadSanitizer's reports on stderr; `fileName` is the customer's
    /// file as the build named it, so reports' frames are matched to it. `answers`, when given,
    /// sees each message first, on the thread that read it, and keeps those it returns true for
    /// out of `outputs`: a call's answer then reaches its caller without a hop through the stream.
    public convenience init(
        executable: String, fileName: String, environment: [String: String],
        answers: (@Sendable (HostMessage) -> Bool)? = nil
    ) throws {
        try self.init(executable: executable, fileNames: [fileName], environment: environment, answers: answers)
    }

    /// `init` for a class in several files, each named as the build named it.
    public init(
        executable: String, fileNames: [String], environment: [String: String],
        answers: (@Sendable (HostMessage) -> Bool)? = nil
    ) throws {
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        var errorsFromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0, pipe(&errorsFromChild) == 0 else { throw POSIXError(.EMFILE) }
        // Ours ends: a write to a host that died is an error, not the SIGPIPE that would end tokendash.
        signal(SIGPIPE, SIG_IGN)
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                [executable], stdin: .descriptor(toChild[0]), stdout: .descriptor(fromChild[1]),
                stderr: .descriptor(errorsFromChild[1]), environment: environment)
        } catch {
            for fd in toChild + fromChild + errorsFromChild { close(fd) }
            throw error
        }
        close(toChild[0])
        close(fromChild[1])
        close(errorsFromChild[1])
        self.pid = pid
        input = toChild[1]
        // Non-blocking: a host that stopped reading must not stop tokendash (a full pipe is a failed send).
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        let (stream, continuation) = AsyncStream<Output>.makeStream()
        outputs = stream
        let (messages, errors) = (fromChild[0], errorsFromChild[0])
        let readers = DispatchGroup()
        readers.enter()
        Thread {
            Self.readLines(messages) { line in
                if let message = HostMessage.parse(line), answers?(message) != true {
                    continuation.yield(.message(message))
                }
                return true
            }
            close(messages)
            readers.leave()
        }.start()
        readers.enter()
        Thread {
            Self.readErrors(errors, fileNames: fileNames) { continuation.yield($0) }
            close(errors)
            readers.leave()
        }.start()
        Task.detached {
            let (status, _) = await ChildProcess.exit(of: pid)
            // Its last words are read before its end is told, so a crash comes with its message.
            await withCheckedContinuation { done in readers.notify(queue: .global()) { done.resume() } }
            continuation.yield(.exited(status))
            continuation.finish()
        }
    }

    /// Asks for one `fetchToken` call; false when the host no longer reads (dead, or its pipe full).
    @discardableResult
    public func send(_ line: String) -> Bool {
        closed.withLock { isClosed in
            guard !isClosed else { return false }
            var line = line
            return line.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return false }
                return write(input, base, bytes.count) == bytes.count
            }
        }
    }

    /// Ends the host at once: SIGKILL, as a class that hangs or floods would ignore anything gentler.
    public func terminate() {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            isClosed = true
            close(input)
        }
        Self.sigkill(pid)
    }

    private static func sigkill(_ pid: pid_t) { _ = kill(pid, SIGKILL) }

    private static func readLines(_ fd: Int32, _ handle: (Substring) -> Bool) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 0x0a) {
                let line = String(decoding: pending[..<newline].prefix(lineLimit), as: UTF8.self)
                pending.removeSubrange(...newline)
                guard handle(Substring(line)) else { return }
            }
            if pending.count > lineLimit * 4 { pending.removeAll(keepingCapacity: true) }
        }
    }

    /// stderr: ThreadSanitizer's reports gathered whole, the rest as printed lines, and a flood stopped.
    private static func readErrors(_ fd: Int32, fileNames: [String], _ yield: (Output) -> Void) {
        var report: [Substring]?
        var windowStart = ContinuousClock.now
        var windowBytes = 0
        var flooded = false
        readLines(fd) { line in
            windowBytes += line.utf8.count + 1
            if ContinuousClock.now - windowStart > .seconds(1) {
                windowStart = ContinuousClock.now
                windowBytes = line.utf8.count + 1
            }
            if windowBytes > floodBytesPerSecond {
                if !flooded { yield(.flooding) }
                flooded = true
                return true
            }
            if RaceReport.starts(line) {
                report = [line]
            } else if report != nil {
                report?.append(line)
                if line.hasPrefix("SUMMARY: ThreadSanitizer") || (report?.count ?? 0) > 400 {
                    if let lines = report, let race = RaceReport.parse(lines, fileNames: fileNames) {
                        yield(.race(race))
                    }
                    report = nil
                }
            } else if !line.hasPrefix("==================") && !line.hasPrefix("ThreadSanitizer: reported")
                && !line.isEmpty
            {
                yield(.printed(String(line)))
            }
            return true
        }
    }
}
