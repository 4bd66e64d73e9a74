import Foundation
import ProviderVocabulary
import Spawning
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of the provider host: the child process, the descriptor it reads requests from, and
/// what it says, as one stream. The protocol has descriptors of its own (`requestDescriptor`,
/// `messageDescriptor`): the class's stdin is /dev/null, so nothing it reads is a request, and its
/// stdout and stderr are one pipe of prints and ThreadSanitizer's reports, so nothing it prints
/// is a message. The host leads a process group of its own, ended whole (`ProcessGroups`) when
/// the host is ended or dies, so nothing the class starts outlives it. Each pipe is read on a
/// thread of its own, so a host that floods or hangs holds no thread of Swift's pool;
/// `terminate()` ends it whatever it is doing.
public final class HostConnection: Sendable {
    /// Something the host did.
    public enum Output: Sendable, Equatable {
        case message(HostMessage)
        /// A line the class printed (or the runtime did for it), not yet redacted; a line over
        /// `lineLimit` bytes is cut there, with a mark saying how many bytes were dropped.
        case printed(String)
        case race(RaceReport)
        /// More than `floodBytesPerSecond` on stdout and stderr within a second: the host is to be killed.
        case flooding
        /// The host's resident memory passed the limit it was started with: it is to be killed.
        case overMemory(bytes: Int)
        /// The process ended: its exit status, or 128 + the signal that killed it.
        case exited(Int32)
    }

    /// The host reads its requests from this descriptor and writes its messages to the next.
    public static let requestDescriptor: Int32 = 3
    public static let messageDescriptor: Int32 = 4

    public let pid: pid_t
    public let outputs: AsyncStream<Output>
    private let input: Int32
    // Set once the input is closed, so a write after terminate() is not made to a reused descriptor.
    private let closed = Mutex(false)

    /// What a host may print a second before it is taken for a flood and killed.
    public static let floodBytesPerSecond = 1 << 20
    /// The longest line kept of what the class prints; the rest of it is dropped and counted.
    public static let lineLimit = 4096
    /// The longest message line read from the host (a token and its JSON); a longer one is cut and so not read.
    static let messageLimit = 1 << 20

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

    /// The resident memory a host may reach before it is killed, unless it is started with another.
    public static let memoryLimitBytes = 2 << 30

    /// `init` for a class in several files, each named as the build named it; the host is watched
    /// for its resident memory passing `memoryLimit` bytes.
    public init(
        executable: String, fileNames: [String], environment: [String: String],
        memoryLimit: Int = HostConnection.memoryLimitBytes, answers: (@Sendable (HostMessage) -> Bool)? = nil
    ) throws {
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        var printsFromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0, pipe(&printsFromChild) == 0 else { throw POSIXError(.EMFILE) }
        // Ours ends: a write to a host that died is an error, not the SIGPIPE that would end tokendash.
        signal(SIGPIPE, SIG_IGN)
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                [executable], stdin: .devNull, stdout: .descriptor(printsFromChild[1]), stderr: .stdout,
                more: [toChild[0], fromChild[1]], ownProcessGroup: true, environment: environment)
        } catch {
            for fd in toChild + fromChild + printsFromChild { close(fd) }
            throw error
        }
        ProcessGroups.adopt(pid)
        close(toChild[0])
        close(fromChild[1])
        close(printsFromChild[1])
        self.pid = pid
        input = toChild[1]
        // Non-blocking: a host that stopped reading must not stop tokendash (a full pipe is a failed send).
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        let (stream, continuation) = AsyncStream<Output>.makeStream()
        outputs = stream
        let (messages, prints) = (fromChild[0], printsFromChild[0])
        let readers = DispatchGroup()
        readers.enter()
        Thread {
            Self.readLines(
                messages, limit: Self.messageLimit, counted: { _ in },
                each: { line, _ in
                    if let message = HostMessage.parse(line), answers?(message) != true {
                        continuation.yield(.message(message))
                    }
                })
            close(messages)
            readers.leave()
        }.start()
        readers.enter()
        Thread {
            Self.readPrints(prints, fileNames: fileNames) { continuation.yield($0) }
            close(prints)
            readers.leave()
        }.start()
        // A flag, not the pid: once the host is reaped its pid may be another process's.
        let ended = Flag()
        Self.watchMemory(of: pid, limit: memoryLimit, until: ended) { continuation.yield(.overMemory(bytes: $0)) }
        Task.detached {
            let (status, _) = await ChildProcess.exit(of: pid)
            ended.set()
            // What the class started dies with its host; until it has, it may hold the pipes open.
            ProcessGroups.end(pid)
            // Its last words are read before its end is told, so a crash comes with its message;
            // a process that left the group and holds a pipe is not waited for past the grace.
            await withCheckedContinuation { done in
                let once = Mutex(false)
                let resume: @Sendable () -> Void = {
                    if once.withLock({ (isDone: inout Bool) -> Bool in
                        defer { isDone = true }
                        return !isDone
                    }) {
                        done.resume()
                    }
                }
                readers.notify(queue: .global(), execute: resume)
                DispatchQueue.global().asyncAfter(
                    deadline: .now() + .nanoseconds(2 * ProcessGroups.graceNanoseconds), execute: resume)
            }
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

    /// Ends the host and everything it started: SIGTERM to its group, SIGKILL after a short grace
    /// (a class that hangs or ignores SIGTERM is killed all the same).
    public func terminate() {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            isClosed = true
            close(input)
        }
        ProcessGroups.end(pid)
    }

    /// A flag one thread sets and another reads.
    final class Flag: Sendable {
        // Guards whether it is set.
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    /// Reads the host's resident memory from /proc ten times a second, on a thread of its own, and
    /// calls `over` once if it passes `limit`. Not an rlimit: ThreadSanitizer reserves terabytes of
    /// address space for its shadow, which RLIMIT_AS and RLIMIT_DATA count and resident memory does not.
    private static func watchMemory(
        of pid: pid_t, limit: Int, until ended: Flag, over: @escaping @Sendable (Int) -> Void
    ) {
        let path = "/proc/\(pid)/statm"
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        Thread {
            while !ended.isSet {
                // statm: total size, then resident pages.
                if let text = try? String(contentsOfFile: path, encoding: .utf8),
                    let resident = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }),
                    resident.multipliedReportingOverflow(by: page).partialValue > limit
                {
                    over(resident * page)
                    return
                }
                usleep(100_000)
            }
        }.start()
    }

    /// Reads `fd` to its end and hands over each line cut to `limit` bytes, with the count of
    /// bytes cut from it; `counted` sees each read's size as it comes. A last line without its
    /// newline is handed over too (a dying host's last words often lack one).
    private static func readLines(
        _ fd: Int32, limit: Int, counted: (Int) -> Void, each handle: (Substring, _ dropped: Int) -> Void
    ) {
        var pending: [UInt8] = []
        // Bytes of the line being read that were past `limit`, dropped as they came.
        var dropped = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            counted(count)
            pending.append(contentsOf: buffer[0..<count])
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0a) {
                let line = pending[start..<newline]
                let kept = line.prefix(limit)
                handle(Substring(String(decoding: kept, as: UTF8.self)), dropped + line.count - kept.count)
                dropped = 0
                start = newline + 1
            }
            pending.removeFirst(start)
            // What is left is one unfinished line: it keeps its first `limit` bytes and counts the rest.
            if pending.count > limit {
                dropped += pending.count - limit
                pending.removeLast(pending.count - limit)
            }
        }
        if !pending.isEmpty || dropped > 0 { handle(Substring(String(decoding: pending, as: UTF8.self)), dropped) }
    }

    /// What the class prints: ThreadSanitizer's reports gathered whole, the rest as printed lines,
    /// and a flood (counted in bytes read, so one endless line is one too) stopped.
    private static func readPrints(_ fd: Int32, fileNames: [String], _ yield: (Output) -> Void) {
        var report: [Substring]?
        var windowStart = ContinuousClock.now
        var windowBytes = 0
        var flooded = false
        readLines(
            fd, limit: lineLimit,
            counted: { count in
                if ContinuousClock.now - windowStart > .seconds(1) {
                    windowStart = ContinuousClock.now
                    windowBytes = 0
                }
                windowBytes += count
                if windowBytes > floodBytesPerSecond, !flooded {
                    flooded = true
                    yield(.flooding)
                }
            },
            each: { line, dropped in
                guard !flooded else { return }
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
                } else if dropped > 0 {
                    yield(.printed(String(line) + " … [\(dropped) more bytes of this line dropped]"))
                } else if !line.hasPrefix("==================") && !line.hasPrefix("ThreadSanitizer: reported")
                    && !line.isEmpty
                {
                    yield(.printed(String(line)))
                }
            })
    }
}
