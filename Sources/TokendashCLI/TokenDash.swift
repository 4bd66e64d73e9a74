import ArgumentParser
import BuildInfo
import HeadlessCommands

/// The `tokendash` command and its subcommands; the executable (Sources/tokendash/main.swift)
/// only calls `main()`.
public struct TokenDash: AsyncParsableCommand {
    public init() {}

    /// The executable's entry: the command line parsed, its command run, an error's message and
    /// exit code given, as ArgumentParser's async `main()` does for an `@main` type (called from
    /// another module, `main()` resolves to the synchronous one, which refuses an async root).
    public static func runFromCommandLine() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    public static let configuration = CommandConfiguration(
        commandName: "tokendash",
        abstract: "A terminal dashboard for Fleet Engine authorization tokens.",
        version: TokenDash.version,
        subcommands: [
            DashboardCommand.self, WatchCommand.self, TapCommand.self, ServeCommand.self, DecodeCommand.self,
            ConfigCommand.self, ReplayCommand.self, ReportCommand.self, ScenarioCommand.self,
            RenderTooSmallCommand.self, SetupCommand.self, LogsCommand.self,
        ],
        defaultSubcommand: DashboardCommand.self
    )

    /// What `--version` prints (`BuildInfo.version`).
    static let version = BuildInfo.version
}
