import Dashboard
import FleetAuth
import Foundation
import UICore

/// One recorded action and when the dashboard applied it.
public struct TimedAction: Equatable, Sendable {
    public var time: Date
    public var action: Action

    public init(time: Date, action: Action) {
        self.time = time
        self.action = action
    }
}

/// A recording as read from its file: the header, every action that could be read, in order, and
/// what could not (a newer format, a truncated or garbled line) as one-line `FILE:LINE:` notes.
public struct Recording: Sendable {
    public var header: RecordingHeader
    public var actions: [TimedAction]
    public var problems: [String]

    public var base: RecordingTimeBase { header.base }
    public var start: Date { base.startDate }
    public var end: Date { max(start, actions.last?.time ?? start) }

    /// Reads `path`. A file that cannot be read or is no recording throws; a line that cannot be
    /// read ends the reading there, with a note, and what came before it is kept.
    public static func read(_ path: String, themes: (String) -> Theme? = { _ in nil }) throws(RecordingError)
        -> Recording
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path, FileManager.default.fileExists(atPath: path) ? "cannot read it" : "no such file")
        }
        return try parse(data, name: path, themes: themes)
    }

    public static func parse(_ data: Data, name: String, themes: (String) -> Theme? = { _ in nil })
        throws(RecordingError) -> Recording
    {
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // A file ends with a newline: the empty piece after it is no line.
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { throw .notARecording(name, "the file is empty") }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(RecordingHeader.self, from: Data(first)),
            header.format == RecordingHeader.formatName
        else {
            throw .notARecording(name, "its first line is not a tokendash recording header")
        }
        do { try RecordingBounds.header(header) } catch { throw .badHeader(name, error.description) }
        var recording = Recording(header: header, actions: [], problems: [])
        if header.version > RecordingHeader.currentVersion {
            recording.problems.append(
                "\(name):1: format version \(header.version) is newer than this tokendash reads (\(RecordingHeader.currentVersion)); showing what it can read"
            )
        }
        let base = header.base
        for (offset, bytes) in lines.enumerated().dropFirst() {
            let number = offset + 1
            do {
                let line: RecordedLine
                do { line = try decoder.decode(RecordedLine.self, from: Data(bytes)) } catch let error
                    as RecordingLineError
                {
                    throw error
                } catch {
                    throw RecordingLineError.invalid(
                        number == lines.count ? "truncated or garbled last line" : "garbled line")
                }
                try RecordingBounds.line(line)
                if let action = try line.action(base: base, themes: themes) {
                    recording.actions.append(TimedAction(time: base.date(line.t), action: action))
                }
            } catch {
                let kept = recording.actions.count
                recording.problems.append(
                    "\(name):\(number): \(error); showing the \(kept) action\(kept == 1 ? "" : "s") before it")
                break
            }
        }
        return recording
    }

    /// The provider events, in order: what `replay --to-watch` prints.
    public var events: [ProviderEvent] {
        actions.compactMap { if case .event(let event) = $0.action { event } else { nil } }
    }
}

/// A recording that cannot be replayed at all: the command exits 2 with this one line.
public enum RecordingError: Error, Equatable, CustomStringConvertible {
    case unreadable(String, String)
    case notARecording(String, String)
    /// A header read but holding a value past `InputBounds` (a start in the year 10^292).
    case badHeader(String, String)
    case cannotWrite(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "\(path): \(why)"
        case .notARecording(let path, let why): "\(path):1: not a tokendash recording: \(why)"
        case .badHeader(let path, let why): "\(path):1: \(why)"
        case .cannotWrite(let path, let why): "--record \(path): \(why)"
        }
    }
}
