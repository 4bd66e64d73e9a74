import Dashboard
import Foundation
import ProviderEvents
import ProviderVocabulary
import RecordingFormat
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
        let reader = try LineReader(header: first, name: name)
        var recording = Recording(header: reader.header, actions: [], problems: reader.problems)
        for (offset, bytes) in lines.enumerated().dropFirst() {
            do {
                if let action = try reader.action(
                    bytes, number: offset + 1, isLast: offset + 1 == lines.count, themes: themes)
                {
                    recording.actions.append(action)
                }
            } catch {
                recording.problems.append(reader.stopped(by: error, number: offset + 1, kept: recording.actions.count))
                break
            }
        }
        return recording
    }

    /// The provider events of the recording at `path`, handed to `each` as they are read, a line
    /// at a time: a tap's recording of a day may be gigabytes (what `tokendash logs --tap` reads).
    /// Returns the problems, as `read` notes them: a line that cannot be read ends the reading.
    public static func forEachEvent(in path: String, _ each: (ProviderEvent) -> Void) throws(RecordingError)
        -> [String]
    {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(path, FileManager.default.fileExists(atPath: path) ? "cannot read it" : "no such file")
        }
        defer { try? handle.close() }
        var lines = FileLines(handle: handle, longest: RecordingBounds.longestLine)
        guard let first = lines.next() else {
            throw .notARecording(path, lines.tooLong ? "its first line is over 16 MiB" : "the file is empty")
        }
        let reader = try LineReader(header: first, name: path)
        var problems = reader.problems
        var events = 0
        // One line held back: whether a line is the last decides how its damage is named.
        var held = lines.next()
        var number = 1
        while let line = held {
            held = lines.next()
            number += 1
            do {
                if case .event(let event)? = try reader.action(line, number: number, isLast: held == nil)?.action {
                    events += 1
                    each(event)
                }
            } catch {
                problems.append(reader.stopped(by: error, number: number, kept: events, noun: "event"))
                return problems
            }
        }
        if lines.tooLong {
            problems.append(
                "\(path):\(number + 1): a line over \(RecordingBounds.longestLine >> 20) MiB; showing the \(events) events before it"
            )
        }
        return problems
    }

    /// The provider events, in order: what `replay --to-watch` prints.
    public var events: [ProviderEvent] {
        actions.compactMap { if case .event(let event) = $0.action { event } else { nil } }
    }
}
