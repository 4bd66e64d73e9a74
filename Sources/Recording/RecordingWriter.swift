import Dashboard
import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import ThreadExecutor

/// Writes a recording (`--record FILE`): the header, then a JSON line per action or event.
/// Recording an action only queues it: lines are encoded and written by a task of their own each
/// second, and at `close`, so the UI thread never waits on JSON or the disk (a fleet's events all
/// pass through it), and a crash loses at most about a second. A write that fails stops the
/// recording and is reported once, by `close`.
public final class RecordingWriter: ActionRecorder, Sendable {
    private struct Queue {
        var actions: [TimedAction] = []
        /// Set by `start`: actions before it are not recorded.
        var base: RecordingTimeBase?
        var closed = false
    }
    private struct Output {
        var descriptor: Int32
        var failure: String?
        var closed = false
    }
    // Guards what waits to be written; taken by the UI thread for an append only.
    private let queue = Mutex(Queue())
    // Guards the file: held while a batch is encoded and written, so batches keep their order.
    private let output: Mutex<Output>
    private let pacer: any FlushPacer
    public let path: String
    /// How often queued lines are written out.
    public static let flushSeconds: TimeInterval = 1

    /// Creates (or empties) `path`: a bad path is a one-line error before anything starts.
    /// Nothing is recorded until `start`. `pacer` says when each flush is due: every
    /// `flushSeconds` of wall time, or when a test ticks it.
    public init(path: String, pacer: any FlushPacer) throws(RecordingError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
        self.path = path
        self.pacer = pacer
        output = Mutex(Output(descriptor: descriptor))
    }

    /// A writer flushing each `flushSeconds` of wall time, as every command records.
    public convenience init(path: String) throws(RecordingError) {
        try self.init(path: path, pacer: WallClockPacer())
    }

    /// Writes `header` and from now on records, writing out each second until `close`.
    public func start(_ header: RecordingHeader) {
        output.withLock { write(Self.line(header), to: &$0) }
        queue.withLock { $0.base = header.base }
        // A thread of its own, not a task: the cooperative pool can be busy for seconds (a large
        // fleet's SDKs run there; a test run's other suites held it for 16 s), and a crash must
        // lose at most about a second. Ends with `close`, which every command calls on its way out.
        let thread = Thread { [self] in
            ThreadExecutor.nameCurrentThread("tokendash-rec")
            while !queue.withLock({ $0.closed }) {
                pacer.waitForNextFlush()
                flush()
            }
        }
        thread.start()
    }

    public func record(_ action: Action, at time: Date) {
        queue.withLock { if $0.base != nil, !$0.closed { $0.actions.append(TimedAction(time: time, action: action)) } }
    }

    /// `watch`'s recording: each provider event at its own time.
    public func record(_ event: ProviderEvent) {
        record(.event(event), at: event.time)
    }

    /// Encodes and writes out what is queued.
    public func flush() {
        output.withLock { out in
            let (actions, base) = queue.withLock { q in
                defer { q.actions.removeAll(keepingCapacity: true) }
                return (q.actions, q.base)
            }
            guard let base, !actions.isEmpty, out.failure == nil, !out.closed else { return }
            var data = Data()
            for timed in actions {
                if let line = RecordedLine(timed.action, at: timed.time, base: base) { data.append(Self.line(line)) }
            }
            write(data, to: &out)
        }
    }

    static func line(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own types, with no value JSON cannot hold: encoding does not fail.
        guard var data = try? encoder.encode(value) else { return Data() }
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private func write(_ data: Data, to out: inout Output) {
        guard out.failure == nil, !out.closed else { return }
        out.failure = data.withUnsafeBytes { bytes -> String? in
            guard let start = bytes.baseAddress else { return nil }
            var written = 0
            while written < bytes.count {
                let n = Foundation.write(out.descriptor, start + written, bytes.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                written += n
            }
            return nil
        }
    }

    /// Writes out the rest and closes the file; returns why writing failed, if it did.
    @discardableResult
    public func close() -> String? {
        flush()
        queue.withLock { $0.closed = true }
        return output.withLock { out in
            if !out.closed {
                out.closed = true
                _ = Foundation.close(out.descriptor)
            }
            return out.failure.map { "recording \(path) stopped: \($0)" }
        }
    }

    /// Closes and removes the file: the run ended before it began (a metrics port in use), and
    /// an empty file would be taken for a recording.
    public func discard() {
        _ = close()
        unlink(path)
    }

    deinit { close() }
}

/// When the recording thread writes out what is queued. A blocking wait, not a clock's async
/// sleep: the writer runs on a thread of its own, away from a cooperative pool that can be busy.
public protocol FlushPacer: Sendable {
    /// Blocks the recording thread until the next flush is due.
    func waitForNextFlush()
}

/// A flush each `RecordingWriter.flushSeconds` of wall time: what every command uses.
public struct WallClockPacer: FlushPacer {
    public init() {}
    public func waitForNextFlush() { Thread.sleep(forTimeInterval: RecordingWriter.flushSeconds) }
}
