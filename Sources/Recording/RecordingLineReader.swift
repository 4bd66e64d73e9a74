import Dashboard
import Foundation
import RecordingFormat
import UICore

extension RecordingBounds {
    /// A recording's lines are one action each, a few hundred bytes; one over this is no
    /// recording's, and is not held.
    static let longestLine = 16 << 20
}

extension Recording {
    /// A recording read line by line, whether whole in memory (`parse`) or from a file a chunk at
    /// a time (`forEachEvent`): the header checked once, then each line decoded, bounded and
    /// turned back into its action.
    struct LineReader {
        let header: RecordingHeader
        let name: String
        /// What the header already says: a newer format, read as far as it can be.
        var problems: [String] = []
        private let decoder = JSONDecoder()

        init(header line: some DataProtocol, name: String) throws(RecordingError) {
            guard let header = try? JSONDecoder().decode(RecordingHeader.self, from: Data(line)),
                header.format == RecordingHeader.formatName
            else {
                throw .notARecording(name, "its first line is not a tokendash recording header")
            }
            do { try RecordingBounds.header(header) } catch { throw .badHeader(name, error.description) }
            self.header = header
            self.name = name
            if header.version > RecordingHeader.currentVersion {
                problems.append(
                    "\(name):1: format version \(header.version) is newer than this tokendash reads (\(RecordingHeader.currentVersion)); showing what it can read"
                )
            }
        }

        /// Line `number`'s action at its time; nil for a line that is no action (a tick of a
        /// recording without ticks). Throws what stops the reading.
        func action(
            _ bytes: some DataProtocol, number: Int, isLast: Bool, themes: (String) -> Theme? = { _ in nil }
        ) throws -> TimedAction? {
            let line: RecordedLine
            do { line = try decoder.decode(RecordedLine.self, from: Data(bytes)) } catch let error
                as RecordingLineError
            {
                throw error
            } catch {
                throw RecordingLineError.invalid(isLast ? "truncated or garbled last line" : "garbled line")
            }
            try RecordingBounds.line(line)
            guard let action = try line.action(base: header.base, themes: themes) else { return nil }
            return TimedAction(time: header.base.date(line.t), action: action)
        }

        /// The note for `error` at line `number`, `kept` actions (or events) read before it.
        func stopped(by error: any Error, number: Int, kept: Int, noun: String = "action") -> String {
            "\(name):\(number): \(error); showing the \(kept) \(noun)\(kept == 1 ? "" : "s") before it"
        }
    }

    /// A file's lines, read 256 KiB at a time; the last one whether or not a newline ends it. A
    /// line longer than `longest` ends the lines (`tooLong`), unheld.
    struct FileLines {
        let handle: FileHandle
        let longest: Int
        private var pending: [UInt8] = []
        /// Where the next line starts in `pending`: lines are sliced off, not copied out of it.
        private var start = 0
        private var ended = false
        private(set) var tooLong = false

        init(handle: FileHandle, longest: Int) {
            self.handle = handle
            self.longest = longest
        }

        mutating func next() -> Data? {
            while true {
                if let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    defer { start = newline + 1 }
                    return Data(pending[start..<newline])
                }
                guard pending.count - start <= longest else {
                    tooLong = true
                    pending = []
                    start = 0
                    ended = true
                    return nil
                }
                if ended {
                    defer {
                        pending = []
                        start = 0
                    }
                    return start < pending.count ? Data(pending[start...]) : nil
                }
                // What is left of the last chunk moves to the front once, before the next is added.
                pending.removeFirst(start)
                start = 0
                if let chunk = try? handle.read(upToCount: 256 << 10), !chunk.isEmpty {
                    pending.append(contentsOf: chunk)
                } else {
                    ended = true
                }
            }
        }
    }
}
