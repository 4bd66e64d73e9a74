import Crypto
import Foundation
import ProviderVocabulary
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
    /// Where the Objective-C runtime is looked for: `ObjCRuntime.root()` unless given (the bench
    /// measures one it sets up itself).
    public var objcRuntimeRoot: URL?

    /// A build's result: the executable, and whether it came from the cache.
    public struct Built: Sendable {
        public let executable: String
        public var cached: Bool
        /// Where the customer's file was copied for the build: reports name it, and are mapped back.
        public let copiedSource: String
        /// Every file built, by the name it was built under, with the text built: a race's
        /// frames are matched to these names, and its variable read from these texts.
        public var sources: [String: String] = [:]
        /// What the host's environment needs beside tokendash's (the Objective-C runtime's configuration).
        public var environment: [String: String] = [:]
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
        if let found = ChildProcess.onPath("swiftc", environment: environment) { return found }
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
        switch source.language {
        case .swift: try await buildSwift(source)
        case .objectiveC: try await ObjCHostBuild(builder: self, source: source).build()
        case .java, .kotlin: try await JavaHostBuild(builder: self, source: source).build()
        }
    }

    /// The names the parts are copied under: their own, but a `main.swift`, which would be taken
    /// for the host's entry point.
    static func copyNames(_ source: ProviderSourceFile, hostFile: String) -> [String] {
        var names: [String] = []
        for part in source.parts {
            var name = part.fileName
            if name == hostFile { name = "YourProvider-" + name }
            while names.contains(name) { name = "_" + name }
            names.append(name)
        }
        return names
    }

    private func buildSwift(_ source: ProviderSourceFile) async throws(BuildProblem) -> Built {
        let module = StandInSDK.module(source.role)
        let main = StandInSDK.hostMain(role: source.role, className: source.className)
        let names = Self.copyNames(source, hostFile: "main.swift")
        let key = Self.key(
            [Self.formatVersion, swiftc, sanitize ? "tsan" : "plain", module.source, main]
                + zip(names, source.parts).flatMap { [$0, $1.buildText] })
        let flags =
            ["-g", "-diagnostic-style=llvm"]
            + (sanitize ? ["-O", "-sanitize=thread"] : [])
        // Under the sanitizer the build is optimised as sanitizer users build: -g keeps each
        // frame's line, inlined or not, and the seeds' races are still reported at their lines
        // (SourceProviderEndToEndTests).
        return try await inPlace(key: key, source: source, names: names) { work throws(BuildProblem) in
            try Self.write(["\(module.name).swift": module.source, "main.swift": main], to: work)
            try await run(
                [
                    swiftc, "-parse-as-library", "-emit-library", "-static", "-emit-module", "-module-name",
                    module.name, "\(module.name).swift", "-o", "lib\(module.name).a",
                ] + flags, in: work, source: source, names: names, hostFile: "main.swift", tool: "swiftc")
            try await run(
                [swiftc, "-I", ".", "-L", ".", "-l\(module.name)", "-module-name", "YourProvider"] + names
                    + ["main.swift", "-o", "provider-host"] + flags,
                in: work, source: source, names: names, hostFile: "main.swift", tool: "swiftc")
        }
    }

    /// The SHA-256 of a build's inputs: the cache's key.
    static func key(_ parts: [String]) -> String {
        var hasher = SHA256()
        for part in parts {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: Data([0]))
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func write(_ files: [String: String], to directory: URL) throws(BuildProblem) {
        for (name, text) in files {
            let url = directory.appendingPathComponent(name)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            } catch {
                throw .io("cannot write \(url.path): \((error as NSError).localizedDescription)")
            }
        }
    }

    /// The build at `key` from the cache, or made by `steps` in a folder of its own with the
    /// parts copied in, and renamed into place: a build cut off never passes for one.
    func inPlace(
        key: String, source: ProviderSourceFile, names: [String], environment: [String: String] = [:],
        steps: (URL) async throws(BuildProblem) -> Void
    ) async throws(BuildProblem) -> Built {
        let directory = cacheRoot.appendingPathComponent(key)
        let executable = directory.appendingPathComponent("provider-host").path
        let copies = Dictionary(uniqueKeysWithValues: zip(names, source.parts.map(\.buildText)))
        let built = Built(
            executable: executable, cached: true, copiedSource: directory.appendingPathComponent(names[0]).path,
            sources: copies, environment: environment)
        if FileManager.default.isExecutableFile(atPath: executable) { return built }
        let work = cacheRoot.appendingPathComponent("\(key).building-\(getpid())")
        do {
            try FileManager.default.createDirectory(
                at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot write the build to \(work.path): \((error as NSError).localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: work) }
        try Self.write(copies, to: work)
        try await steps(work)
        do {
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.moveItem(at: work, to: directory)
        } catch {
            throw .io("cannot move the build into \(directory.path): \((error as NSError).localizedDescription)")
        }
        var fresh = built
        fresh.cached = false
        return fresh
    }

    /// Bumped when the build's steps change, so an old cache entry is not taken for a new one.
    static let formatVersion = "tokendash-provider-host-5"

    /// Runs the compiler (`arguments`, its path first) in the build directory, so the paths in
    /// its messages are short and known; its errors are mapped back to the customer's files.
    func run(
        _ arguments: [String], in directory: URL, source: ProviderSourceFile, names: [String], hostFile: String,
        tool: String
    ) async throws(BuildProblem) {
        let log = directory.appendingPathComponent("compiler.log").path
        let status: Int32
        do {
            let pid = try ChildProcess.spawn(
                ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory.path] + arguments,
                stdin: .devNull, stdout: .file(log), stderr: .stdout)
            status = await ChildProcess.exit(of: pid).0
        } catch {
            throw .io("cannot run \(arguments[0]): \(error)")
        }
        guard status != 0 else { return }
        var output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        if tool == "javac" { output = JavacOutput.joined(output) }
        throw .compiler(
            CompilerOutput.errors(
                output, copies: Dictionary(uniqueKeysWithValues: zip(names, source.parts.map(\.path))),
                hostFile: hostFile, tool: tool))
    }
}

/// Why the customer's class could not be built.
public enum BuildProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Swift toolchain: a source provider needs one.
    case noToolchain(String)
    /// The compiler's errors, each `file:line:col: error: …` in the customer's file.
    case compiler([String])
    case io(String)
    /// No Objective-C runtime set up: the sentence naming `tokendash setup objc`.
    case noRuntime(String)

    public var description: String {
        switch self {
        case .noToolchain(let why):
            "a source provider is built with a Swift toolchain, and there is none here: \(why) (install one from swift.org, or pass --swiftc PATH)"
        case .compiler(let errors): errors.joined(separator: "\n")
        case .io(let why): why
        case .noRuntime(let why): why
        }
    }

    /// The first line: what a pane or a one-line message shows.
    public var firstLine: String { description.split(separator: "\n").first.map(String.init) ?? description }
}

/// The compiler's messages, its errors kept and their paths made the customer's own.
enum CompilerOutput {
    /// `copies`: each name a file was built under, with the customer's path for it.
    static func errors(_ output: String, copies: [String: String], hostFile: String, tool: String) -> [String] {
        var errors: [String] = []
        for line in output.split(separator: "\n")
        where line.contains(": error: ") || line.contains("undefined reference") {
            var text = String(line)
            if let (name, path) = copies.first(where: { text.hasPrefix($0.key + ":") }) {
                text = path + text.dropFirst(name.count)
            } else if text.hasPrefix(hostFile + ":") {
                // The host's own code fails only where the class cannot be used as the SDK uses it.
                let needs = tool == "javac" ? "a constructor with no arguments" : "an init() with no arguments"
                text = "(tokendash's provider host) " + text + " (the class needs \(needs))"
            }
            errors.append(text)
        }
        return errors.isEmpty
            ? ["\(tool) failed: " + (output.split(separator: "\n").suffix(3).joined(separator: " | "))] : errors
    }
}
