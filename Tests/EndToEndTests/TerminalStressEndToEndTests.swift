import Foundation
import Testing

/// The real dashboard under terminal stress in tmux (scripts/e2e-terminal-stress.sh): resize
/// storms, 1x1 windows, 300 pasted keys, unknown keys and escape sequences, SIGTERM and SIGINT
/// at many moments. After every run the terminal must be exactly as before (`stty -g`, alternate
/// screen off, cursor visible, keypad modes reset) and the shell's screen back.
@Suite(.timeLimit(.minutes(15))) struct TerminalStressEndToEndTests {
    @Test(.enabled(if: DashboardEndToEndTests.tmuxInstalled, "needs tmux"))
    func survivesTerminalStressAndRestoresTheTerminal() async throws {
        // About a minute of tmux runs on 2 cores; the margin is for a loaded machine, and a hang
        // still ends the test (the script's own waits are bounded too).
        let (status, text) = try await BinaryRunner.runScript(named: "e2e-terminal-stress.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains("terminal-stress: ok"))
    }
}
