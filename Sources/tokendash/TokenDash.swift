import ArgumentParser

@main
struct TokenDash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokendash",
        abstract: "A terminal dashboard for Fleet Engine authorization tokens.",
        version: TokenDash.version,
        subcommands: [DashboardCommand.self, WatchCommand.self, ServeCommand.self, DecodeCommand.self, ConfigCommand.self, ReplayCommand.self, ScenarioCommand.self],
        defaultSubcommand: DashboardCommand.self
    )

    /// What `--version` prints, and what recordings will name.
    static let version = "tokendash 0.3.0"
}
