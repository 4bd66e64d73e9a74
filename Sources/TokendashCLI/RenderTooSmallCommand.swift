import ArgumentParser
import Dashboard
import Foundation
import UICore

/// Hidden, for scripts/e2e-terminal-stress.sh: prints the "Terminal too small" screen as the
/// renderer draws it at WIDTHxHEIGHT, one line per row with trailing spaces trimmed (as tmux's
/// capture-pane shows a screen). The script then checks that the terminal shows exactly the
/// renderer's frame, not a copy of its text kept in bash.
struct RenderTooSmallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-too-small",
        abstract: "Print the too-small screen as the renderer draws it (for the terminal tests).",
        shouldDisplay: false)

    @Option(help: "Columns.")
    var width: Int

    @Option(help: "Rows.")
    var height: Int

    func validate() throws {
        // Bounded above too: a 59-column screen a billion rows high is no terminal, and its frame
        // would not fit in memory.
        guard (1...1000).contains(width), (1...1000).contains(height) else {
            throw ValidationError("--width and --height must be from 1 to 1000")
        }
        guard !Layout.fits(width: width, height: height) else {
            throw ValidationError(
                "\(width)x\(height) is not too small: the dashboard needs \(Layout.compactWidth)x\(Layout.compactHeight)"
            )
        }
    }

    func run() {
        // Below the minimum size nothing of a state is drawn but its quit key: the standard one,
        // as in the script's runs (their config folder is empty).
        let state = DashboardState(consumerID: "", driverID: "", now: Date(), backend: "", faultsAvailable: false)
        for line in Renderer.render(state, width: width, height: height).lines { print(line) }
    }
}
