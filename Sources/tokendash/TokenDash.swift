import ArgumentParser

@main
struct TokenDash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokendash",
        abstract: "A terminal dashboard for Fleet Engine authorization tokens.",
        subcommands: [WatchCommand.self, ServeCommand.self, DecodeCommand.self],
        defaultSubcommand: nil
    )
}
