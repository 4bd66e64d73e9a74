import ArgumentParser
import DashboardRuntime
import Evidence
import Foundation
import LogsScreen
import Recording
import TapReading
import UICore

/// A recording as one HTML page anyone can open offline: the evidence for a customer who does
/// not have tokendash.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract:
            "Write a recording (--record) as one self-contained HTML page: verdicts, timeline, fetch log, tokens, Fleet Engine's answers, marks with their frames.",
        discussion: """
            The page loads nothing from the network (inline style sheet and SVG) and reads in light \
            and dark schemes and on paper. Tokens are redacted, as on screen; a recording never holds \
            a whole one. The file is written to a temporary name and renamed, so nothing partial is \
            left under its name.
            """)

    @Argument(help: "The recording (JSON lines written by --record).")
    var file: String

    @Option(name: .shortAndLong, help: "The page to write (e.g. report.html).")
    var output: String

    @Option(help: "Theme of the marks' frames (a file in Themes/ or a built-in: default, light, high-contrast, mono).")
    var theme: String?

    func run() async throws {
        if LogsReplay.isLogsRecording(file) {
            let read = LogsReplay.read(file)
            let theme = try EvidenceInput.theme(named: self.theme)
            let view = LogsReplay.view(read, source: LogsCommand.source([file]), speed: 60, paused: true)
            try EvidenceInput.write(
                LogsReport.page(view, theme: theme, name: file, version: TokenDash.version), to: output)
            for problem in read.problems { DashboardCommand.fail(problem) }
            return
        }
        let (recording, theme) = try EvidenceInput.read(file, theme: self.theme)
        let page = RecordingEvidence.report(
            recording, theme: theme, name: file, version: TokenDash.version,
            marks: TapTableMarks.maker(churnLimit: recording.header.churnLimit))
        try EvidenceInput.write(page, to: output)
        for problem in recording.problems { DashboardCommand.fail(problem) }
    }
}

/// What `report` and `replay --to-cast` share: the recording read as the replay reads it (its
/// `file:line` errors included), the theme, and the output written whole or not at all.
enum EvidenceInput {
    /// The themes tokendash finds (built in, beside the executable, the user's folder).
    static func catalog(_ environment: [String: String]) -> ThemeCatalog {
        ThemeCatalog.standard(explicit: nil, environment: environment, executable: CommandLine.arguments[0])
    }

    /// The theme alone, for what is not a session's recording (a logs recording, its screen).
    static func theme(named requested: String?) throws -> Theme {
        let environment = ProcessInfo.processInfo.environment
        return try theme(requested, catalog: catalog(environment), environment: environment)
    }

    static func read(_ file: String, theme requested: String?) throws -> (Recording, Theme) {
        let environment = ProcessInfo.processInfo.environment
        let catalog = catalog(environment)
        return (try recording(file, catalog: catalog), try theme(requested, catalog: catalog, environment: environment))
    }

    /// The recording as the replay reads it; what cannot be read at all is one line and exit 2.
    static func recording(_ file: String, catalog: ThemeCatalog) throws -> Recording {
        do { return try Recording.read(file, themes: { try? catalog.load($0) }) } catch {
            DashboardCommand.fail("replay \(error)")
            throw ExitCode(2)
        }
    }

    /// The theme asked for (or `NO_COLOR`'s, or the default); a bad name is one line and exit 2.
    static func theme(_ requested: String?, catalog: ThemeCatalog, environment: [String: String]) throws -> Theme {
        do {
            return try catalog.load(ThemeCatalog.initialThemeName(requested: requested, environment: environment))
        } catch {
            DashboardCommand.fail("\(error)")
            throw ExitCode(2)
        }
    }

    static func write(_ text: String, to path: String) throws {
        do { try RecordingEvidence.write(text, to: path) } catch {
            DashboardCommand.fail("\(error)")
            throw ExitCode(2)
        }
    }
}
