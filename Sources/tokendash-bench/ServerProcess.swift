import Foundation
import Spawning
import TokenServer

/// The embedded token server in a process of its own (this binary re-executed with
/// `--serve-child`), so its CPU time can be read from outside, apart from the load generator's.
final class ServerProcess: Sendable {
    static let childFlag = "--serve-child"

    let pid: pid_t
    let baseURL: URL
    /// Our end of the child's stdin: closing it tells the child to exit.
    private let stdinWrite: Int32

    /// Starts `tokendash-bench --serve-child KEYFILE` and waits for its "listening on URL" line.
    convenience init(keyFile: String) throws { try self.init(childArguments: [Self.childFlag, keyFile]) }

    /// Starts this binary with `childArguments` (a child mode's flag first), `environment` added to
    /// ours, and waits for its "listening on URL" line.
    init(childArguments: [String], environment: [String: String] = [:]) throws {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard input.withUnsafeMutableBufferPointer({ pipe($0.baseAddress) }) == 0,
            output.withUnsafeMutableBufferPointer({ pipe($0.baseAddress) }) == 0
        else {
            throw MintBenchmark.BenchmarkError("cannot make pipes for the server process")
        }
        let arguments = [Self.executablePath] + childArguments
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                arguments, stdin: .descriptor(input[0]), stdout: .descriptor(output[1]), stderr: .descriptor(2),
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        } catch {
            for fd in input + output { close(fd) }
            throw MintBenchmark.BenchmarkError("cannot start \(arguments[0]): \(error)")
        }
        close(input[0])
        close(output[1])
        self.pid = pid
        self.stdinWrite = input[1]
        let line = Self.readLine(output[0])
        close(output[0])
        guard let line, line.hasPrefix("listening on "),
            let url = URL(string: String(line.dropFirst("listening on ".count)))
        else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            close(input[1])
            throw MintBenchmark.BenchmarkError("the server process did not start: \(line ?? "no output")")
        }
        self.baseURL = url
    }

    /// Stops the child (closing its stdin, then SIGKILL if it lingers) and reaps it.
    func stop() {
        close(stdinWrite)
        for _ in 0..<100 {
            if waitpid(pid, nil, WNOHANG) == pid { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, nil, 0)
    }

    /// The child's user + system CPU seconds so far, all threads, from /proc/PID/stat
    /// (fields 14 and 15, in clock ticks).
    func cpuSeconds() throws -> Double { try Self.cpuSeconds(of: pid) }

    /// The CPU time (user + system) of process `pid`, its ended threads included.
    static func cpuSeconds(of pid: pid_t) throws -> Double {
        let path = "/proc/\(pid)/stat"
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw MintBenchmark.BenchmarkError("cannot read \(path)")
        }
        guard let seconds = cpuSeconds(stat: stat) else { throw MintBenchmark.BenchmarkError("cannot parse \(path)") }
        return seconds
    }

    /// The CPU seconds of `pid`'s thread named `name` (its `comm`), from /proc/PID/task; nil
    /// when no thread has that name.
    static func cpuSeconds(ofThreadNamed name: String, in pid: pid_t) -> Double? {
        let tasks = "/proc/\(pid)/task"
        for task in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            let comm = (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.trimmingCharacters(in: .newlines) == name,
                let stat = try? String(contentsOfFile: "\(tasks)/\(task)/stat", encoding: .utf8)
            else { continue }
            return cpuSeconds(stat: stat)
        }
        return nil
    }

    /// User + system seconds from a process's or a thread's `stat` line (fields 14 and 15, in clock ticks).
    private static func cpuSeconds(stat: String) -> Double? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        // After the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    private static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    // MARK: - The child's side

    /// Runs in the child: serves with the key in `keyFile` until stdin closes, then exits.
    static func serve(keyFile: String) async -> Never {
        do {
            let server = try await EmbeddedTokenServer(
                configuration: TokenServerConfiguration(signingKey: .file(keyFile)))
            let url = try await server.start()
            FileHandle.standardOutput.write(Data("listening on \(url.absoluteString)\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("tokendash-bench: server process: \(error)\n".utf8))
            exit(1)
        }
        await exitAtEndOfInput()
    }

    /// Serves on until the parent closes our stdin, then runs `atEnd` and exits: the child modes'
    /// one way to end.
    static func exitAtEndOfInput(atEnd: @escaping @Sendable () -> Void = {}) async -> Never {
        // Wait for EOF on a thread of its own: a blocking read on the cooperative pool would take
        // one of its two threads away from the server.
        let thread = Thread {
            _ = FileHandle.standardInput.readDataToEndOfFile()
            atEnd()
            exit(0)
        }
        thread.start()
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }
}
