import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real dashboard on a real pty: scripts/e2e-tmux.sh drives it in tmux.
@Suite struct DashboardEndToEndTests {
    static let tmuxInstalled = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].contains { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: tmuxInstalled, "needs tmux"))
    func drivesTheDashboardInTmux() async throws {
        let script = BinaryRunner.packageRoot.appendingPathComponent("scripts/e2e-tmux.sh").path
        let (status, text) = try Self.runWithCleanSignals(["/usr/bin/env", "bash", script, BinaryRunner.binary.path], timeout: 90)
        #expect(status == 0, "\(text)")
        #expect(text.contains("e2e: ok"))
    }

    @Test func refusesToRunWithoutATerminal() async throws {
        // stdin and stdout are pipes here.
        let result = try await BinaryRunner.run([])
        #expect(result.status == 2)
        #expect(result.stderr == "tokendash: the dashboard needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash watch`\n")
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
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-e2e-themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("broken.yaml")
        try "body: { fg: default }\nstatus:\n  ok: chartreuse\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try await BinaryRunner.run(["--theme", "broken", "--themes-dir", dir.path])
        #expect(result.status == 2)
        #expect(result.stderr == "tokendash: \(file.path):3: status.ok: \"chartreuse\" is not a colour (a name, 0-255, #rrggbb or default)\n")
    }

    /// Runs `arguments` with no signals blocked and default dispositions, output in a file.
    /// A Foundation `Process` child inherits the blocked mask of the Dispatch thread that spawns
    /// it; tmux started under that mask never sees SIGCHLD, so panes never die and kill-server
    /// hangs. A file instead of a pipe means a stray grandchild cannot keep the test waiting for EOF.
    static func runWithCleanSignals(_ arguments: [String], timeout: TimeInterval) throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-e2e-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        // Polled: waitpid has no timeout, and a hung script must fail the test, not hang CI.
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                return (-1, "timed out after \(Int(timeout)) s\n" + text)
            }
            usleep(50_000)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        // WIFEXITED/WEXITSTATUS are macros Swift cannot import.
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), text)
    }
}
