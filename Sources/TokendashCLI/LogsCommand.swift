import ArgumentParser
import Foundation
import HeadlessCommands
import LogReading
import LogsScreen
import RecordingFormat

#if canImport(Glibc)
    import Glibc
#endif

/// `tokendash logs FILE…`: Fleet Engine's own logs, from a Cloud Logging export, per vehicle,
/// trip, delivery vehicle and task: on a terminal the logs screen, which plays the export; with
/// `--summary` one JSON object, with `--watch` the calls as JSON lines.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "Read a Cloud Logging export of Fleet Engine's logs: calls, errors and silences per ID.",
        discussion: """
            Reads every shape of export without flags: a JSON array of entries (gcloud logging read \
            --format=json, the Logs Explorer's download), entries one per line or concatenated (a \
            Cloud Storage sink's files, jq -c), a folder as the sink lays it out, BigQuery rows as \
            JSON, a wrapper object (fleet-debugger's rawLogs), any of them gzip-compressed; "-" is \
            stdin. On a terminal, without --summary or --watch, the logs screen opens once the export \
            is read: a row per ID (Enter follows one, / finds IDs, v shows the version table, q quits). \
            It opens on the whole export and plays it as replay plays a recording: Space or p plays \
            from the start and pauses, ←/→ seek a sixtieth of the span, . steps to the next call, > \
            changes the speed (1×, 10×, 60×, 600× the logged pace), [ and ] jump to the start and \
            the end. \
            Each problem is one line on stderr (FILE:LINE: reason: detail), and what was read before \
            it is kept. A read of more than 2 s shows its progress (bytes, entries, rate) on stderr \
            when that is a terminal. --summary prints one JSON object. --watch prints each call as \
            JSON lines in the order read (a fleet_engine_call line per ID the entry names; gcloud \
            logging read lists the newest first), then a silence line per silence; with --summary \
            too, the summary is the last line. --tap reads a tokendash tap --record file of the \
            same hours against each ID's quiet stretches: a device that fetched tokens the rules \
            refuse while silent ran and was refused (Fleet Engine logs no authentication error). \
            Exit 0 when read, 1 when an entry names an \
            error given to --fail-on (or any ID has a silence, for --fail-on silence), 2 when the \
            input is not an export at all (or --tap names no recording).
            """)

    @Argument(help: "Export files or folders, or - for stdin.")
    var inputs: [String]

    @Flag(name: .customLong("summary"), help: "Print the export's summary as one JSON object (no dashboard).")
    var summary = false

    @Flag(
        name: .customLong("watch"),
        help:
            "Print each call as JSON lines (fleet_engine_call, one per ID), then each silence, as watch prints events."
    )
    var watch = false

    @Option(
        name: .customLong("tap"),
        help: ArgumentHelp(
            "A tokendash tap --record file of the same hours: each silence read against the tokens the device fetched in it. Repeatable, for several taps.",
            valueName: "recording"))
    var taps: [String] = []

    @Option(
        name: .customLong("record"),
        help: ArgumentHelp(
            "Write what is read as a recording: replay plays it on the logs screen, report and replay --to-cast take it. It is an export too, of the fields tokendash reads.",
            valueName: "file"))
    var record: String?

    @Option(
        name: .customLong("fail-on"),
        help:
            "Exit 1 when an entry has this error code (e.g. PERMISSION_DENIED), or, for 'silence', any silence. Repeatable."
    )
    var failOn: [String] = []

    /// `--tap`'s recordings as the join's fetches (several taps behind one balancer record a file
    /// each); a recording's own problems (a cut line) are said and what came before them kept.
    func tapJoin(_ tally: ExportTally) throws -> TapJoin? {
        guard !taps.isEmpty else { return nil }
        var join = TapJoin(tally)
        for tap in taps {
            do {
                for problem in try LogsTap.read(tap, into: &join) { say(problem, as: "logs") }
            } catch {
                say("--tap \(error)", as: "logs")
                throw ExitCode(2)
            }
        }
        return join
    }

    /// What the screen's header names: the one input's file name, or how many there were.
    static func source(_ inputs: [String]) -> String {
        guard inputs.count == 1, let input = inputs.first else { return "\(inputs.count) inputs" }
        return input == "-" ? "stdin" : (input as NSString).lastPathComponent
    }

    /// Problem lines printed on stderr; the rest are counted in the summary's `skipped`.
    static let problemLines = 20

    func run() throws {
        let onScreen = !summary && !watch
        if onScreen, !hasDrawingTerminal(ProcessInfo.processInfo.environment) {
            say(
                "the logs screen needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use --summary or --watch",
                as: "logs")
            throw ExitCode(64)
        }
        // A --tap file that is not there is said before a long read, not after it.
        for tap in taps where !FileManager.default.isReadableFile(atPath: tap) {
            say(
                "--tap \(tap): \(FileManager.default.fileExists(atPath: tap) ? "cannot read it" : "no such file")",
                as: "logs")
            throw ExitCode(2)
        }
        var reader = ExportReader()
        // An export of gigabytes is millions of lines: written 64 KiB at a time, not a write each.
        var pending = ""
        func flush() {
            guard !pending.isEmpty else { return }
            FileHandle.standardOutput.write(Data(pending.utf8))
            pending = ""
        }
        // Only the screen plays the export, so only it keeps the calls (`ExportTimeline`).
        var timeline = ExportTimeline()
        var recordFile: LogsRecordFile?
        if let record {
            do {
                recordFile = try LogsRecordFile(
                    path: record,
                    header: LogsRecording.headerLine(
                        tokendash: TokenDash.version, command: CommandLineRedactor.redact(CommandLine.arguments),
                        inputs: inputs))
            } catch {
                say("\(error)", as: "logs")
                throw ExitCode(2)
            }
        }
        // `--summary` alone is told of no entry: the tally is all it needs.
        if onScreen || watch || recordFile != nil {
            reader.onEntry = { [watch] entry in
                if onScreen { timeline.add(entry) }
                recordFile?.add(entry)
                guard watch else { return }
                for line in LoggedCallLines.lines(entry) {
                    pending += line
                    pending += "\n"
                }
                if pending.utf8.count >= 1 << 16 { flush() }
            }
        }
        // Progress only on a terminal: a pipe or a file gets the summary and the problems alone.
        var progress = LogsProgress()
        if isatty(STDERR_FILENO) == 1 {
            let clock = ContinuousClock()
            let start = clock.now
            reader.onChunk = { bytes, entries in
                guard let line = progress.line(elapsed: clock.now - start, bytes: bytes, entries: entries) else {
                    return
                }
                FileHandle.standardError.write(Data("\r\u{1B}[Ktokendash logs: \(line)".utf8))
            }
        }
        for input in inputs {
            // A logs recording (`--record`) is an export with a header and a last line of its own.
            guard LogsReplay.isLogsRecording(input), let file = try? FileChunkSource(path: input) else {
                reader.read(path: input)
                continue
            }
            var source = LogsRecordingSource(file)
            reader.read(&source, name: input)
        }
        recordFile?.finish(reader)
        if let failure = recordFile?.failure { say(failure, as: "logs") }
        if progress.saidAnything { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        var lines = reader.problems.prefix(Self.problemLines).map { "tokendash logs: \($0)\n" }.joined()
        let more = reader.problems.count - Self.problemLines
        if more > 0 {
            lines +=
                "tokendash logs: … and \(more)\(reader.problems.count == ExportReader.maxProblemLines ? "+" : "") more\n"
        }
        if !lines.isEmpty { FileHandle.standardError.write(Data(lines.utf8)) }

        // The export first: the join counts each fetch into its ID's quiet windows as it is read.
        let result = LogSummary(reader, tap: try tapJoin(reader.tally))
        if watch {
            for line in LoggedCallLines.silenceLines(result.ids) { pending += line + "\n" }
            for line in LoggedCallLines.findingLines(result) { pending += line + "\n" }
        }
        if summary { pending += result.json + "\n" }
        flush()
        if reader.recognized == 0 && !reader.sawContainer {
            say("no Cloud Logging entry in the input: not an export", as: "logs")
            throw ExitCode(2)
        }
        if onScreen {
            // The problems stay said above it: the screen takes the terminal once the reading is done.
            timeline.finish()
            if timeline.dropped > 0 {
                say(
                    "the export holds over \(ExportTimeline.maxCalls) calls: it plays up to the last kept, and its end shows all of it",
                    as: "logs")
            }
            let source = Self.source(inputs)
            try LogsScreenLoop.run(
                LogsPlayer(timeline, whole: result).map { LogsView($0, source: source) }
                    ?? LogsView(result, source: source))
        }
        let named = result.names(anyOf: failOn)
        if !named.isEmpty {
            say("found \(named.joined(separator: ", "))", as: "logs")
            throw ExitCode(1)
        }
    }
}
