import Foundation
import LogReading
import LogsScreen

/// A logs recording (`tokendash logs EXPORT --record FILE`) read back for `replay` and `report`:
/// read as the export it is, its header and last lines set aside (`LogsRecordingSource`), the
/// export's own skipped entries and unknown names taken from the last line.
enum LogsReplay {
    /// Whether the file's first line is a logs recording's header; a session's recording, an
    /// export or anything else is not.
    static func isLogsRecording(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        guard head.starts(with: Data(LogsRecording.headerPrefix.utf8)) else { return false }
        return String(decoding: head.prefix { $0 != 0x0A }, as: UTF8.self).contains(#""source":"logs""#)
    }

    struct Read {
        var summary: LogSummary
        var timeline: ExportTimeline
        /// Each a line: the recording's own damage, with FILE:LINE.
        var problems: [String]
    }

    /// `onEntry` is told each entry in the order recorded (`replay --to-watch`).
    static func read(_ path: String, onEntry: ((LogEntry) -> Void)? = nil) -> Read {
        var reader = ExportReader()
        var timeline = ExportTimeline()
        reader.onEntry = { entry in
            timeline.add(entry)
            onEntry?(entry)
        }
        var problems: [String] = []
        var trailer: LogsRecording.Trailer?
        do {
            var source = LogsRecordingSource(try FileChunkSource(path: path))
            reader.read(&source, name: path)
            trailer = source.trailer.flatMap(LogsRecording.Trailer.init)
        } catch {
            problems.append("\(path): \(error)")
        }
        timeline.finish()
        problems += reader.problems.map(\.description)
        if trailer == nil {
            problems.append("\(path): no last line (logs_read): the recording was cut; what it holds is shown")
        }
        let skipped = (trailer?.skipped ?? [:]).merging(reader.skipped, uniquingKeysWith: +)
        let summary = LogSummary(
            tally: reader.tally, skipped: skipped,
            unknownTypes: (trailer?.unknownTypes ?? [:]).merging(reader.unknownTypes.counts, uniquingKeysWith: +),
            unknownFields: (trailer?.unknownFields ?? [:]).merging(reader.unknownFields.counts, uniquingKeysWith: +))
        return Read(summary: summary, timeline: timeline, problems: problems)
    }

    /// The screen on the recording, its playhead at the start (playing unless `paused`), as
    /// `replay` starts a session's.
    static func view(_ read: Read, source: String, speed: Int, paused: Bool) -> LogsView {
        guard var player = LogsPlayer(read.timeline, whole: read.summary, speed: speed) else {
            return LogsView(read.summary, source: source)
        }
        player.seek(to: player.from)
        if !paused { player.play() }
        return LogsView(player, source: source)
    }
}
