import Foundation
import Testing

/// The real dashboard on a real pty: scripts/e2e-tmux.sh drives it in tmux.
@Suite(.timeLimit(.minutes(15))) struct DashboardEndToEndTests {
    static let tmuxInstalled = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: tmuxInstalled, "needs tmux"))
    func drivesTheDashboardInTmux() async throws {
        let (status, text) = try await BinaryRunner.runScript(named: "e2e-tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains("e2e: ok"))
    }

    @Test func refusesToRunWithoutATerminal() async throws {
        // stdin and stdout are pipes here.
        let result = try await BinaryRunner.run([])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "tokendash: the dashboard needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash watch`\n"
        )
    }

    @Test func anUnknownThemeListsTheAvailableOnes() async throws {
        let result = try await BinaryRunner.run(["--theme", "neon"])
        #expect(result.status == 2)
        #expect(result.stderr == "tokendash: neon: unknown theme; available: default, high-contrast, light, mono\n")
    }

    @Test func anUnknownThemeIsReportedEvenUnderNoColor() async throws {
        let result = try await BinaryRunner.run(["--theme", "neon"], environment: ["NO_COLOR": "1"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("tokendash: neon: unknown theme; available:"))
    }

    @Test func aMissingThemesDirIsAnError() async throws {
        let result = try await BinaryRunner.run(["--themes-dir", "/nonexistent/tokendash-themes"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--themes-dir /nonexistent/tokendash-themes is not a folder"))
    }

    @Test func aBrokenThemeFileNamesFileAndLine() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-e2e-themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("broken.yaml")
        try "body: { fg: default }\nstatus:\n  ok: chartreuse\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try await BinaryRunner.run(["--theme", "broken", "--themes-dir", dir.path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "tokendash: \(file.path):3: status.ok: \"chartreuse\" is not a colour (a name, 0-255, #rrggbb or default)\n"
        )
    }
}
