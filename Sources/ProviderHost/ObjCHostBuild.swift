import Foundation
import ObjCRuntime
import ProviderVocabulary

/// An Objective-C class and the Objective-C host (HostPrograms/main.m) built into one executable
/// with the runtime `tokendash setup objc` made: the Swift toolchain's clang, GNUstep's flags
/// with ARC, the SDK's stand-in headers, and each `.m` file's own folder searched for the headers
/// it imports with quotes, as Xcode finds a header beside its file.
struct ObjCHostBuild {
    let builder: HostBuilder
    let source: ProviderSourceFile
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// The stand-in headers, at the paths the samples import them by.
    static let headers: [String: String] = [
        "sdk/GoogleRidesharingDriver/GoogleRidesharingDriver.h": HostProgramSources.driverHeader,
        "sdk/GoogleRidesharingConsumer/GoogleRidesharingConsumer.h": HostProgramSources.consumerHeader,
    ]

    /// The largest number of headers beside the files that are read into the cache's key.
    static let maximumHeaders = 200

    func build() async throws(BuildProblem) -> HostBuilder.Built {
        let root = builder.objcRuntimeRoot ?? ObjCRuntime.root(environment: environment)
        guard let runtime = ObjCRuntime.installed(root: root) else {
            throw .noRuntime(ObjCRuntime.missingSentence(root: root))
        }
        guard FileManager.default.isExecutableFile(atPath: runtime.clang) else {
            throw .noRuntime(
                "the Objective-C runtime in \(runtime.prefix) was built with \(runtime.clang), which is gone: run `tokendash setup objc` again after removing that folder"
            )
        }
        let names = HostBuilder.copyNames(source, hostFile: "main.m")
        let folders = Self.folders(of: source)
        let definitions =
            [
                "-DTOKENDASH_PROVIDER_CLASS=\"\(source.className)\""
            ] + (source.role == .consumer ? ["-DTOKENDASH_CONSUMER=1"] : [])
        // Under the sanitizer the build is optimised as sanitizer users build (-O1 -g: each
        // frame keeps its line).
        let sanitizer = builder.sanitize ? ["-fsanitize=thread", "-O1"] : ["-O0"]
        let compile =
            [runtime.clang] + runtime.objcFlags + ["-g", "-I", "sdk"]
            + folders.flatMap { ["-iquote", $0] } + definitions + sanitizer
        let sources = zip(names, source.parts).filter { ($0.1.path as NSString).pathExtension == "m" }.map(\.0)
        // A header beside the files is part of what is built, though tokendash does not copy it.
        let key = HostBuilder.key(
            [HostBuilder.formatVersion, "objc", builder.sanitize ? "tsan" : "plain", HostProgramSources.objectiveC]
                + compile + runtime.linkFlags + Self.headers.keys.sorted().compactMap { Self.headers[$0] }
                + zip(names, source.parts).flatMap { [$0, $1.buildText] } + Self.headerTexts(in: folders))
        return try await builder.inPlace(key: key, source: source, names: names, environment: runtime.environment) {
            work throws(BuildProblem) in
            try HostBuilder.write(
                Self.headers.merging(["main.m": HostProgramSources.objectiveC]) { $1 }, to: work)
            try await builder.run(
                compile + sources + ["main.m", "-o", "provider-host"] + runtime.linkFlags + sanitizer,
                in: work, source: source, names: names, hostFile: "main.m", tool: "clang")
        }
    }

    /// The folders of the files given, each once, in order: where their quoted imports are found.
    static func folders(of source: ProviderSourceFile) -> [String] {
        var folders: [String] = []
        for part in source.parts {
            let folder = URL(fileURLWithPath: part.path).deletingLastPathComponent().standardizedFileURL.path
            if !folders.contains(folder) { folders.append(folder) }
        }
        return folders
    }

    /// The text of every header in `folders`, by name: a change to one makes a new build.
    static func headerTexts(in folders: [String]) -> [String] {
        var texts: [String] = []
        for folder in folders {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                .filter { $0.hasSuffix(".h") }.sorted().prefix(maximumHeaders)
            for name in names {
                let path = (folder as NSString).appendingPathComponent(name)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                    (attributes[.size] as? Int ?? 0) <= ProviderSourceFile.maximumBytes,
                    let data = FileManager.default.contents(atPath: path)
                else { continue }
                texts += [path, String(decoding: data, as: UTF8.self)]
            }
        }
        return texts
    }
}
