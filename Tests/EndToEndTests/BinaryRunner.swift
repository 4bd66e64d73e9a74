import Foundation

/// Runs the built `tokendash` binary as a user would, capturing stdout, stderr and the exit code.
enum BinaryRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary sits beside the test bundle in the build folder.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tokendash")
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs to completion on a thread of its own, so the wait blocks none of the cooperative pool's
    /// threads: on a 2-core machine there are two, and loopback servers of other tests in this
    /// process need them meanwhile (their answers were seen to miss 5 s deadlines).
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: TimeInterval = 30) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, stdin: stdin, environment: environment, timeout: timeout) })
            }.start()
        }
    }

    /// Runs to completion, killing the process after `timeout` seconds so a hang fails the test instead of CI.
    static func runBlocking(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: TimeInterval = 30) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // Read before waiting: a full pipe would block the child forever.
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }
}
