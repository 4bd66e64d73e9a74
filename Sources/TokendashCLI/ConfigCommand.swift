import ArgumentParser
import ConfigFile
import Foundation
import HeadlessCommands

/// `tokendash config check`: reads the config file as a run would, and shows what a run gets.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the config file (profiles, defaults, key remaps).",
        subcommands: [ConfigCheckCommand.self])
}

struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Validate the config file and print the settings a run would use, and where each comes from (secrets redacted). Exit 1 on an error."
    )

    @OptionGroup var config: ConfigOptions
    // The backend flags too, so `config check --profile p --trip-id x` shows what wins.
    @OptionGroup var backend: BackendOptions

    func run() throws {
        let resolved: ResolvedConfig
        let filled: BackendOptions
        do {
            resolved = try config.load()
            filled = backend.filled(from: resolved)
            try filled.validate()
        } catch {
            let reason = (error as? ValidationError)?.message ?? "\(error)"
            say(reason, as: "config check")
            // A bad file exits 2, as the dashboard and `watch` do with it (the flags alone were
            // checked before `run`, exit 64: what fails here came from the file).
            throw ExitCode(2)
        }
        let report = ConfigReport(location: config.location, resolved: resolved, flags: backend, filled: filled)
        print(report.lines.joined(separator: "\n"))
    }
}
