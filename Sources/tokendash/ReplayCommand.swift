import ArgumentParser
import Dashboard
import DashboardRuntime
import Foundation
import Signals
import Terminal
import UICore
import Watch

/// Shows a recording (`--record`) in the dashboard, or prints its events as `watch` lines.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Show a recording made with --record in the dashboard, or print its events as watch lines.",
        discussion: """
            Keys: Space or p pauses and plays, . steps to the next event, ←/→ seek 10 s, Home/End jump \
            to the start or the end, > changes the speed (1×, 4×, 16×). Keys that act on live providers \
            (refresh, new IDs, faults) are refused: their outcomes are in the recording.
            """)

    @Argument(help: "The recording (JSON lines written by --record).")
    var file: String

    @Option(parsing: .unconditional, help: "Playback speed: 1, 4 or 16 times the recorded pace.")
    var speed = 1

    @Flag(help: "Start paused.")
    var paused = false

    @Flag(name: .customLong("to-watch"), help: "Print the recorded provider events as `tokendash watch` lines instead of showing them.")
    var toWatch = false

    @Option(help: "Theme name (a file in Themes/ or a built-in: default, light, high-contrast, mono).")
    var theme: String?

    func validate() throws {
        guard ReplayStatus.speeds.contains(speed) else {
            throw ValidationError("--speed must be one of \(ReplayStatus.speeds.map(String.init).joined(separator: ", "))")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let catalog = ThemeCatalog.standard(explicit: nil, environment: environment, executable: CommandLine.arguments[0])
        let recording: Recording
        do { recording = try Recording.read(file, themes: { try? catalog.load($0) }) } catch {
            DashboardCommand.fail("replay \(error)")
            throw ExitCode(2)
        }
        if toWatch { return printWatchLines(recording) }
        let initialTheme: Theme
        do { initialTheme = try catalog.load(ThemeCatalog.initialThemeName(requested: theme, environment: environment)) } catch {
            DashboardCommand.fail("\(error)")
            throw ExitCode(2)
        }
        let term = environment["TERM"] ?? ""
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1, !term.isEmpty, term != "dumb" else {
            DashboardCommand.fail("replay needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash replay FILE --to-watch`")
            throw ExitCode(2)
        }
        let signals = SignalWatcher([SIGINT, SIGTERM, SIGHUP])
        var state = recording.header.initialState(theme: initialTheme, themeNames: catalog.names)
        // What could not be read is said where the user looks; all before it is shown.
        state.message = recording.problems.isEmpty ? nil : recording.problems.joined(separator: "; ")
        let source = ReplayEventSource(timeline: ReplayTimeline(recording, initial: state), speed: speed, paused: paused)
        state.replay = source.status
        let inbox = ActionInbox()
        let events = Task { await source.run(into: inbox) }
        // A snapshot taken while watching goes next to the recording, with its events up to there.
        let snapshots = SnapshotWriter(recording: URL(fileURLWithPath: file), events: { source.recentEvents() }, version: TokenDash.version)
        let performer = ReplayEffectPerformer(source: source, snapshots: snapshots) { name in
            do { return .themeLoaded(try catalog.load(name)) } catch { return .message("theme \(name): \(error)") }
        }
        let noColor = ThemeCatalog.noColor(requested: theme, environment: environment)
        await TerminalBootstrap.run(state: state, inbox: inbox, performer: performer, ticks: false, nextSignal: { await signals.next() },
                                    terminal: { TerminalScreen(theme: initialTheme, noColor: noColor, mouse: true) })
        events.cancel()
    }

    /// The recorded events as `watch` printed them (tokens redacted; a recording has no other form).
    private func printWatchLines(_ recording: Recording) {
        signal(SIGPIPE, SIG_IGN)
        let encoder = WatchEventEncoder()
        var out = ""
        for event in recording.events {
            out += WatchEventEncoder.marked(encoder.encode(event), insecure: recording.header.insecure) + "\n"
            if out.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(out.utf8))
                out = ""
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        for problem in recording.problems { DashboardCommand.fail(problem) }
    }
}
