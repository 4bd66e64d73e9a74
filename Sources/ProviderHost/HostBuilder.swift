import Crypto
import FleetAuth
import Foundation
import Spawning

/// Builds the customer's class and tokendash's host into one executable with the user's own
/// Swift toolchain, cached by the SHA-256 of everything that goes into it, so a second run of an
/// unchanged file starts at once.
public struct HostBuilder: Sendable {
    public let swiftc: String
    /// ThreadSanitizer on (the default): the SDK calls from several threads, and a race in the
    /// class is then reported with its two lines.
    public let sanitize: Bool
    public let cacheRoot: URL

    /// A build's result: the executable, and whether it came from the cache.
    public struct Built: Sendable {
        public let executable: String
        public let cached: Bool
        /// Where the customer's file was copied for the build: reports name it, and are mapped back.
        public let copiedSource: String
    }

    public init(swiftc: String, sanitize: Bool, cacheRoot: URL) {
        self.swiftc = swiftc
        self.sanitize = sanitize
        self.cacheRoot = cacheRoot
    }

    /// `swiftc` from `--swiftc`, else from PATH; one sentence when there is none, as with the
    /// release binary alone.
    public static func findSwiftc(given: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(BuildProblem) -> String
    {
        if let given {
            guard FileManager.default.isExecutableFile(atPath: given) else {
                throw .noToolchain("--swiftc \(given) is not an executable file")
            }
            return given
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/swiftc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw .noToolchain("swiftc was not found on PATH")
    }

    /// The user's cache directory for builds: `$XDG_CACHE_HOME/tokendash/providers`, else `~/.cache/...`.
    public static func defaultCacheRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSTemporaryDirectory()) + "/.cache")
        return URL(fileURLWithPath: base).appendingPathComponent("tokendash/providers")
    }

    public func build(_ source: ProviderSourceFile) async throws(BuildProblem) -> Built {
        let module = StandInSDK.module(source.role)
        let main = StandInSDK.hostMain(role: source.role, className: source.className)
        // A file named main.swift would be taken for the host's entry point.
        let copyName =
            source.fileName == "main.swift" || !source.fileName.hasSuffix(".swift")
            ? "YourProvider.swift" : source.fileName
        var hasher = SHA256()
        for part in [
            Self.formatVersion, swiftc, sanitize ? "tsan" : "plain", module.source, main, copyName, source.buildText,
        ] {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: Data([0]))
        }
        let key = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let directory = cacheRoot.appendingPathComponent(key)
        let executable = directory.appendingPathComponent("provider-host").path
        let copied = directory.appendingPathComponent(copyName).path
        if FileManager.default.isExecutableFile(atPath: executable) {
            return Built(executable: executable, cached: true, copiedSource: copied)
        }
        // Built in a directory of its own and renamed into place, so a build cut off never passes for one.
        let work = cacheRoot.appendingPathComponent("\(key).building-\(getpid())")
        do {
            try FileManager.default.createDirectory(
                at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(module.source.utf8).write(to: work.appendingPathComponent("\(module.name).swift"))
            try Data(main.utf8).write(to: work.appendingPathComponent("main.swift"))
            try Data(source.buildText.utf8).write(to: work.appendingPathComponent(copyName))
        } catch {
            throw .io("cannot write the build to \(work.path): \((error as NSError).localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: work) }
        // Under the sanitizer each call gets a fresh thread (the host's main says why).
        let flags =
            ["-g", "-diagnostic-style=llvm"] + (sanitize ? ["-sanitize=thread", "-D", "TOKENDASH_FRESH_THREADS"] : [])
        try await run(
            [
                "-parse-as-library", "-emit-library", "-static", "-emit-module", "-module-name", module.name,
                "\(module.name).swift", "-o", "lib\(module.name).a",
            ] + flags, in: work, source: source, copyName: copyName)
        try await run(
            [
                "-I", ".", "-L", ".", "-l\(module.name)", "-module-name", "YourProvider", copyName, "main.swift",
                "-o", "provider-host",
            ] + flags, in: work, source: source, copyName: copyName)
        do {
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.moveItem(at: work, to: directory)
        } catch {
            throw .io("cannot move the build into \(directory.path): \((error as NSError).localizedDescription)")
        }
        return Built(executable: executable, cached: false, copiedSource: copied)
    }

    /// Bumped when the build's steps change, so an old cache entry is not taken for a new one.
    static let formatVersion = "tokendash-provider-host-3"

    private func run(_ arguments: [String], in directory: URL, source: ProviderSourceFile, copyName: String)
        async throws(BuildProblem)
    {
        let log = directory.appendingPathComponent("swiftc.log").path
        let status: Int32
        do {
            // swiftc runs in the build directory, so the paths in its messages are short and known.
            let pid = try ChildProcess.spawn(
                ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory.path, swiftc] + arguments,
                stdin: .devNull, stdout: .file(log), stderr: .stdout)
            status = await ChildProcess.exit(of: pid).0
        } catch {
            throw .io("cannot run \(swiftc): \(error)")
        }
        guard status != 0 else { return }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw .compiler(CompilerOutput.errors(output, copyName: copyName, userPath: source.path))
    }
}

/// Why the customer's class could not be built.
public enum BuildProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Swift toolchain: a source provider needs one.
    case noToolchain(String)
    /// The compiler's errors, each `file:line:col: error: …` in the customer's file.
    case compiler([String])
    case io(String)

    public var description: String {
        switch self {
        case .noToolchain(let why):
            "a source provider is built with a Swift toolchain, and there is none here: \(why) (install one from swift.org, or pass --swiftc PATH)"
        case .compiler(let errors): errors.joined(separator: "\n")
        case .io(let why): why
        }
    }

    /// The first line: what a pane or a one-line message shows.
    public var firstLine: String { description.split(separator: "\n").first.map(String.init) ?? description }
}

/// swiftc's messages, its errors kept and their paths made the customer's own.
enum CompilerOutput {
    static func errors(_ output: String, copyName: String, userPath: String) -> [String] {
        var errors: [String] = []
        for line in output.split(separator: "\n") where line.contains(": error: ") {
            var text = String(line)
            if text.hasPrefix(copyName + ":") {
                text = userPath + text.dropFirst(copyName.count)
            } else if text.hasPrefix("main.swift:") {
                // The host's own code fails only where the class cannot be used as the SDK uses it.
                text = "(tokendash's provider host) " + text + " (the class needs an init() with no arguments)"
            }
            errors.append(text)
        }
        return errors.isEmpty
            ? ["swiftc failed: " + (output.split(separator: "\n").suffix(3).joined(separator: " | "))] : errors
    }
}
