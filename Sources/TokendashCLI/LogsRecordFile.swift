import Foundation
import LogReading

/// `tokendash logs EXPORT --record FILE`: the header line, each counted entry as it is read
/// (`LogsRecording.line`), 64 KiB at a time, and the read's last line. A write that fails (a
/// full disk) is said once and the recording stops; the read goes on.
final class LogsRecordFile {
    private let path: String
    private var handle: FileHandle?
    private var pending = ""
    private(set) var failure: String?

    init(path: String, header: String) throws {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw LogsRecordError("--record \(path): cannot create it") }
        self.handle = handle
        pending = header + "\n"
    }

    func add(_ entry: LogEntry) {
        guard handle != nil else { return }
        pending += LogsRecording.line(entry)
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    /// The read's last line, then the file closed.
    func finish(_ reader: ExportReader) {
        guard handle != nil else { return }
        pending += LogsRecording.trailerLine(reader) + "\n"
        flush()
        try? handle?.close()
        handle = nil
    }

    private func flush() {
        guard let handle, !pending.isEmpty else { return }
        do { try handle.write(contentsOf: Data(pending.utf8)) } catch {
            failure = "--record \(path): \(error.localizedDescription); the recording stops here"
            try? handle.close()
            self.handle = nil
        }
        pending = ""
    }
}

struct LogsRecordError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
