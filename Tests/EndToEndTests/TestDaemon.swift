import Foundation
import TestSupport

/// A real daemon a test runs on loopback (nginx, squid): a temp folder of its own for its config,
/// pid file and logs, a free port, run in the foreground so stopping the process ends it, waited
/// for until its start-up line, and always stopped (and its folder removed) after the test's body.
final class TestDaemon: Sendable {
    /// What one kind of daemon needs to start: its name, its program, the config it gets for a
    /// port and folder, its arguments for that config file, and the line it logs once it serves.
    struct Kind: Sendable {
        let name: String
        let executable: String?
        /// Squid started as root drops to the `proxy` user, which must still write its logs.
        var folderOpenToAll = false
        let configuration: @Sendable (_ port: Int, _ folder: URL) throws -> String
        let arguments: @Sendable (_ configFile: String, _ folder: URL) -> [String]
        let ready: @Sendable (_ port: Int) -> String
    }

    let port: Int
    let folder: URL
    private let process: BackgroundProcess

    var url: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, folder: URL, process: BackgroundProcess) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    /// Starts a daemon of `kind` and waits until it serves.
    static func start(_ kind: Kind) async throws -> TestDaemon {
        guard let executable = kind.executable else { throw TestDaemonError(message: "\(kind.name) is not installed") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-\(kind.name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true,
            attributes: kind.folderOpenToAll ? [.posixPermissions: 0o777] : nil)
        let port = try BackgroundProcess.freePort()
        let file = folder.appendingPathComponent("\(kind.name).conf")
        try kind.configuration(port, folder).write(to: file, atomically: true, encoding: .utf8)
        let process = try BackgroundProcess(
            URL(fileURLWithPath: executable), kind.arguments(file.path, folder), name: kind.name)
        let daemon = TestDaemon(port: port, folder: folder, process: process)
        guard try await process.await(kind.ready(port)) != nil else {
            let output = process.output
            await daemon.stop()
            throw TestDaemonError(message: "\(kind.name) did not start: \(output.suffix(2_000))")
        }
        return daemon
    }

    /// Runs `body` with a daemon of `kind`, stopped (and awaited) afterwards, failure or not: a
    /// daemon left running would outlive the test process.
    static func run<T>(_ kind: Kind, _ body: (TestDaemon) async throws -> T) async throws -> T {
        let daemon = try await start(kind)
        do {
            let result = try await body(daemon)
            await daemon.stop()
            return result
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// The access log so far (both daemons are configured to write it in the folder).
    var accessLog: String {
        (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
    }

    /// The first access-log line containing every one of `parts`, once written (squid logs a
    /// tunnel only when it closes). No deadline of its own: the suite's time limit cancels the
    /// wait, which then throws with the test's name.
    func awaitLogLine(_ parts: String...) async throws -> String? {
        var found: String?
        // The daemon writes its log and tells no one: checked every 100 ms.
        _ = await eventually(every: .milliseconds(100)) {
            found = accessLog.split(separator: "\n").first { line in parts.allSatisfy { line.contains($0) } }.map(
                String.init)
            return found != nil
        }
        try Task.checkCancellation()
        return found
    }

    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

struct TestDaemonError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
