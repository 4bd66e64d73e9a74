import Dashboard
import FleetAuth
import Foundation
import Synchronization

/// Writes a recording (`--record FILE`): the header, then a JSON line per action or event.
/// Lines are buffered and written out each second and on `close`, so a crash loses at most about
/// a second; a write that fails stops the recording and is reported once, by `close`.
public final class RecordingWriter: ActionRecorder, Sendable {
    private struct Output {
        var descriptor: Int32
        var buffer = Data()
        var failure: String?
        var closed = false
        /// Set by `start`: lines before it are not recorded.
        var base: RecordingTimeBase?
    }
    // Guards the file and its buffer: lines come from the UI thread (or watch's printer task),
    // flushes from the flushing task.
    private let output: Mutex<Output>
    public let path: String
    /// How often buffered lines are written out.
    public static let flushInterval: Duration = .seconds(1)

    /// Creates (or empties) `path`: a bad path is a one-line error before anything starts.
    /// Nothing is recorded until `start`.
    public init(path: String) throws(RecordingError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
        self.path = path
        output = Mutex(Output(descriptor: descriptor))
    }

    /// Writes `header` and from now on records, writing out each second until `close`.
    public func start(_ header: RecordingHeader) {
        output.withLock { $0.base = header.base }
        append(header)
        flush()
        // Ends with `close`, which every command calls on its way out.
        Task.detached { [self] in
            while !isClosed {
                try? await Task.sleep(for: Self.flushInterval)
                flush()
            }
        }
    }

    private var isClosed: Bool { output.withLock { $0.closed } }

    public func record(_ action: Action, at time: Date) {
        guard let base = output.withLock({ $0.base }), let line = RecordedLine(action, at: time, base: base) else { return }
        append(line)
    }

    /// `watch`'s recording: each provider event at its own time.
    public func record(_ event: ProviderEvent) {
        record(.event(event), at: event.time)
    }

    private func append(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(value) else { return }
        data.append(UInt8(ascii: "\n"))
        output.withLock { if !$0.closed, $0.failure == nil { $0.buffer.append(data) } }
    }

    /// Writes out what is buffered.
    public func flush() {
        output.withLock { out in
            guard !out.buffer.isEmpty, out.failure == nil, !out.closed else { return }
            let failure = out.buffer.withUnsafeBytes { bytes -> String? in
                guard let start = bytes.baseAddress else { return nil }
                var written = 0
                while written < bytes.count {
                    let n = write(out.descriptor, start + written, bytes.count - written)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return String(cString: strerror(errno))
                    }
                    written += n
                }
                return nil
            }
            out.buffer.removeAll(keepingCapacity: true)
            out.failure = failure
        }
    }

    /// Writes out the rest and closes the file; returns why writing failed, if it did.
    @discardableResult
    public func close() -> String? {
        flush()
        return output.withLock { out in
            if !out.closed {
                out.closed = true
                _ = Foundation.close(out.descriptor)
            }
            return out.failure.map { "recording \(path) stopped: \($0)" }
        }
    }

    deinit { close() }
}
