import ArgumentParser

@main
struct TokenDash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokendash",
        abstract: "A terminal dashboard for Fleet Engine authorization tokens.",
        version: TokenDash.version,
        subcommands: [
            DashboardCommand.self, WatchCommand.self, TapCommand.self, ServeCommand.self, DecodeCommand.self,
            ConfigCommand.self, ReplayCommand.self, ReportCommand.self, ScenarioCommand.self,
            RenderTooSmallCommand.self, SetupCommand.self,
        ],
        defaultSubcommand: DashboardCommand.self
    )

    /// The release number; `scripts/release.sh` names the tarball and the .deb after it.
    static let number = "0.3.0"

    /// What `--version` prints, and what recordings and snapshots name: the release number and
    /// the commit built from (`BuildStamp`), so a bug report says exactly which build it was.
    static let version = "tokendash \(number) (\(BuildStamp.commit.map { "commit \($0)" } ?? "dev build"))"
}
