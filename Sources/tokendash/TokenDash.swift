import ArgumentParser

@main
struct TokenDash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokendash",
        abstract: "A terminal dashboard for Fleet Engine authorization tokens.",
        subcommands: [DashboardCommand.self, WatchCommand.self, ServeCommand.self, DecodeCommand.self],
        defaultSubcommand: DashboardCommand.self
    )
}
