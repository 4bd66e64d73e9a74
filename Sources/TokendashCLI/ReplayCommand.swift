import ArgumentParser
import Dashboard
import DashboardRuntime
import EventLines
import Evidence
import Foundation
import LogReading
import LogsScreen
import Recording
import Signals
import TapReading
import Terminal
import UICore

/// Shows a recording (`--record`) in the dashboard, or prints its events as `watch` lines.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Show a recording made with --record in the dashboard, or print its events as watch lines.",
        discussion: """
            Keys: Space or p pauses and plays, . steps to the next event, ←/→ seek 10 s, Home/End jump \
            to the start or the end, > changes the speed (1×, 4×, 16×). Keys that act on live providers \
            (refresh, new IDs, faults) are refused: their outcomes are in the recording. A recording \
            of Fleet Engine's logs (tokendash logs EXPORT --record FILE) plays on the logs screen, at \
            1, 10, 60 (the default) or 600 times the logged pace.
            """)

    @Argument(help: "The recording (JSON lines written by --record).")
    var file: String

    @Option(
        parsing: .unconditional,
        help: "Playback speed: 1, 4 or 16 times the recorded pace (a logs recording: 1, 10, 60 or 600).")
    var speed: Int?

    @Flag(help: "Start paused.")
    var paused = false

    @Flag(
        name: .customLong("to-watch"),
        help: "Print the recorded provider events as `tokendash watch` lines instead of showing them.")
    var toWatch = false

    @Option(
        name: .customLong("to-cast"),
        help:
            "Write the session as an asciicast v2 file (asciinema play, agg) instead of showing it: frames as ANSI, markers for marks, ID switches, faults, refusals, Fleet Engine errors and scenario steps."
    )
    var toCast: String?

    @OptionGroup var cast: CastOptions

    @Option(help: "Theme name (a file in Themes/ or a built-in: default, light, high-contrast, mono).")
    var theme: String?

    /// Whether the file is a logs recording, which plays on the logs screen at its own speeds.
    var isLogs: Bool { LogsReplay.isLogsRecording(file) }

    func validate() throws {
        let speeds = isLogs ? LogsPlayer.speeds : ReplayStatus.speeds
        if let speed, !speeds.contains(speed) {
            throw ValidationError(
                "--speed must be one of \(speeds.map(String.init).joined(separator: ", "))\(isLogs ? " for a logs recording" : "")"
            )
        }
        if toCast != nil, toWatch {
            throw ValidationError("--to-cast and --to-watch each write the whole recording: give one")
        }
        try cast.validate(casting: toCast != nil, castFlag: "--to-cast")
    }

    func run() async throws {
        if isLogs { return try replayLogs() }
        if let toCast { return try writeCast(to: toCast) }
        let environment = ProcessInfo.processInfo.environment
        let catalog = EvidenceInput.catalog(environment)
        let recording = try EvidenceInput.recording(file, catalog: catalog)
        if toWatch { return printWatchLines(recording) }
        let initialTheme = try EvidenceInput.theme(theme, catalog: catalog, environment: environment)
        guard hasDrawingTerminal(environment) else {
            DashboardCommand.fail(
                "replay needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash replay FILE --to-watch`"
            )
            throw ExitCode(2)
        }
        let signals = SignalWatcher([SIGINT, SIGTERM, SIGHUP])
        var state = recording.header.initialState(theme: initialTheme, themeNames: catalog.names)
        // What could not be read is said where the user looks; all before it is shown.
        state.message = recording.problems.isEmpty ? nil : recording.problems.joined(separator: "; ")
        let source = ReplayEventSource(
            timeline: ReplayTimeline(
                recording, initial: state, marks: TapTableMarks.maker(churnLimit: recording.header.churnLimit)),
            speed: speed ?? 1, paused: paused)
        state.replay = source.status
        let inbox = ActionInbox()
        let events = Task { await source.run(into: inbox) }
        // A snapshot taken while watching goes next to the recording, with its events up to there.
        let snapshots = SnapshotWriter(
            recording: URL(fileURLWithPath: file), events: { source.recentEvents() }, version: TokenDash.version)
        let performer = ReplayEffectPerformer(source: source, snapshots: snapshots) { name in
            do { return .themeLoaded(try catalog.load(name)) } catch { return .message("theme \(name): \(error)") }
        }
        let noColor = ThemeCatalog.noColor(requested: theme, environment: environment)
        await TerminalBootstrap.run(
            state: state, inbox: inbox, performer: performer, ticks: false, nextSignal: { await signals.next() },
            terminal: { TerminalScreen(theme: initialTheme, noColor: noColor, mouse: true) })
        events.cancel()
    }

    /// A logs recording: on the logs screen, as `--to-watch` lines (what `logs --watch` printed),
    /// or as a cast of the screen playing it.
    private func replayLogs() throws {
        let environment = ProcessInfo.processInfo.environment
        if toWatch {
            signal(SIGPIPE, SIG_IGN)
            var out = ""
            let read = LogsReplay.read(file) { entry in
                for line in LoggedCallLines.lines(entry) { out += line + "\n" }
                if out.utf8.count > 1 << 16 {
                    FileHandle.standardOutput.write(Data(out.utf8))
                    out = ""
                }
            }
            for line in LoggedCallLines.silenceLines(read.summary.ids) { out += line + "\n" }
            FileHandle.standardOutput.write(Data(out.utf8))
            for problem in read.problems { DashboardCommand.fail(problem) }
            return
        }
        if toCast == nil, !hasDrawingTerminal(environment) {
            DashboardCommand.fail(
                "replay needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash replay FILE --to-watch`"
            )
            throw ExitCode(2)
        }
        let read = LogsReplay.read(file)
        let view = LogsReplay.view(
            read, source: LogsCommand.source([file]), speed: speed ?? 60, paused: paused || toCast != nil)
        guard let toCast else {
            // Said before the screen takes the terminal, and left above it when it gives it back.
            for problem in read.problems { DashboardCommand.fail(problem) }
            return try LogsScreenLoop.run(view, theme: theme)
        }
        let theme = try EvidenceInput.theme(named: self.theme)
        let text = LogsCast.make(
            view, theme: theme, idleTimeLimit: cast.idleTimeLimit,
            title: "tokendash logs, \(LogsCommand.source([file]))",
            shell: environment["SHELL"])
        try EvidenceInput.write(text, to: toCast)
        for problem in read.problems { DashboardCommand.fail(problem) }
    }

    /// `--to-cast`: the recording played through and written as an asciicast; what could not be
    /// read is said as the replay says it, after the cast of what came before.
    private func writeCast(to path: String) throws {
        let (recording, theme) = try EvidenceInput.read(file, theme: self.theme)
        // A tapped session's tables carry the tap's columns, as the dashboard and the replay show them.
        let text = RecordingEvidence.cast(
            recording, theme: theme, idleTimeLimit: cast.idleTimeLimit,
            shell: ProcessInfo.processInfo.environment["SHELL"],
            marks: TapTableMarks.maker(churnLimit: recording.header.churnLimit))
        try EvidenceInput.write(text, to: path)
        for problem in recording.problems { DashboardCommand.fail(problem) }
    }

    /// The recorded events as `watch` printed them (tokens redacted; a recording has no other form).
    private func printWatchLines(_ recording: Recording) {
        signal(SIGPIPE, SIG_IGN)
        let encoder = EventLineEncoder()
        var out = ""
        for event in recording.events {
            out += EventLineEncoder.marked(encoder.encode(event), insecure: recording.header.insecure) + "\n"
            if out.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(out.utf8))
                out = ""
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        for problem in recording.problems { DashboardCommand.fail(problem) }
    }
}
