import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import Synchronization
import ThreadExecutor

/// Something a recording holds a line of, once its start is known: a dashboard action (the
/// Recording module's), a provider event, the ramp's pace.
public protocol RecordingEntry: Sendable {
    /// The line for this entry at `time`, or nil for what is not recorded.
    func line(at time: Date, base: RecordingTimeBase) -> RecordedLine?
}

/// Writes a recording (`--record FILE`): the header, then a JSON line per action or event.
/// Recording an entry only queues it: lines are encoded and written by a task of their own each
/// second, and at `close`, so the UI thread never waits on JSON or the disk (a fleet's events all
/// pass through it), and a crash loses at most about a second. A write that fails stops the
/// recording and is reported once, by `close`.
public final class RecordingWriter: Sendable {
    private struct Pending: Sendable {
        var time: Date
        var entry: any RecordingEntry
    }
    private struct Queue {
        var entries: [Pending] = []
        /// Set by `start`: entries before it are not recorded.
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

    /// Queues `entry`'s line, made when it is written out.
    public func record(entry: some RecordingEntry, at time: Date) {
        queue.withLock { if $0.base != nil, !$0.closed { $0.entries.append(Pending(time: time, entry: entry)) } }
    }

    /// `watch`'s recording: each provider event at its own time.
    public func record(_ event: ProviderEvent) {
        record(entry: EventEntry(event: event), at: event.time)
    }

    /// `watch`'s ramp: its pace whenever it changes, nil when the ramp is over.
    public func record(pace: Pacer.Status?, at time: Date) {
        record(entry: PaceEntry(pace: pace), at: time)
    }

    /// Encodes and writes out what is queued.
    public func flush() {
        output.withLock { out in
            let (entries, base) = queue.withLock { q in
                defer { q.entries.removeAll(keepingCapacity: true) }
                return (q.entries, q.base)
            }
            guard let base, !entries.isEmpty, out.failure == nil, !out.closed else { return }
            var data = Data()
            for pending in entries {
                if let line = pending.entry.line(at: pending.time, base: base) { data.append(Self.line(line)) }
            }
            write(data, to: &out)
        }
    }

    package static func line(_ value: some Encodable) -> Data {
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

private struct EventEntry: RecordingEntry {
    var event: ProviderEvent
    func line(at time: Date, base: RecordingTimeBase) -> RecordedLine? {
        RecordedLine(t: base.offset(time), .event(RecordedEvent(event, base: base)))
    }
}

private struct PaceEntry: RecordingEntry {
    var pace: Pacer.Status?
    func line(at time: Date, base: RecordingTimeBase) -> RecordedLine? {
        RecordedLine(t: base.offset(time), .pace(pace.map(RecordedPace.init)))
    }
}
