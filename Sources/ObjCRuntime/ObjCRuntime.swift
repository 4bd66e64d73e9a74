import Foundation

/// The Objective-C runtime a customer's `.m` provider is built and run with on Linux: libobjc2
/// (the gnustep-2.0 ABI, so ARC and blocks) and GNUstep's Foundation on it, which has
/// `NSURLSession` on libcurl. Debian's GNUstep is built for GCC's runtime (no ARC, no blocks,
/// `NSURLSession` compiled out), so `tokendash setup objc` builds these three releases into the
/// user's cache (TOOLCHAIN.md, "Seen on 2026-11-28", has the recipe and its timings).
public enum ObjCRuntime {
    /// One source release the runtime is built from, pinned by its SHA-256.
    public struct Release: Sendable, Equatable {
        public var name: String
        public var version: String
        /// The tarball's file name, as `--sources DIR` holds it.
        public var file: String
        public var sha256: String
        /// The project's own release download.
        public var url: String
        /// The folder the tarball unpacks into.
        public var folder: String
    }

    /// The three releases, in the order they are built (each needs the one before).
    public static let releases: [Release] = [
        Release(
            name: "libobjc2", version: "2.3", file: "libobjc2-2.3.tar.gz",
            sha256: "6f58ffd53d5551a8a0131bbdabca049b11cf1e52e12801649d70cfdf807de32c",
            url: "https://github.com/gnustep/libobjc2/archive/refs/tags/v2.3.tar.gz", folder: "libobjc2-2.3"),
        Release(
            name: "gnustep-make", version: "2.9.3", file: "gnustep-make_2.9.3.orig.tar.gz",
            sha256: "93ca320b706279ebca53760da89d4c3f2bbc547f4723967140a34346d9f04c24",
            url: "https://github.com/gnustep/tools-make/releases/download/make-2_9_3/gnustep-make-2.9.3.tar.gz",
            folder: "gnustep-make-2.9.3"),
        Release(
            name: "gnustep-base", version: "1.31.1", file: "gnustep-base_1.31.1.orig.tar.gz",
            sha256: "e7546f1c978a7c75b676953a360194a61e921cb45a4804497b4f346a460545cd",
            url: "https://github.com/gnustep/libs-base/releases/download/base-1_31_1/gnustep-base-1.31.1.tar.gz",
            folder: "gnustep-base-1.31.1"),
    ]

    /// The folder name of this set of versions: a new release is a new folder, never a mix.
    public static var versions: String { releases.map { "\($0.name)-\($0.version)" }.joined(separator: "_") }

    /// `$XDG_CACHE_HOME/tokendash/objc`, else `~/.cache/tokendash/objc`.
    public static func root(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSTemporaryDirectory()) + "/.cache")
        return URL(fileURLWithPath: base).appendingPathComponent("tokendash/objc")
    }

    /// Where the runtime of these versions lives once built.
    public static func prefix(root: URL) -> URL { root.appendingPathComponent(versions) }

    /// The name of the file setup writes last, into the finished prefix.
    public static let manifestName = "tokendash-runtime.json"

    /// What a provider's build needs to know of an installed runtime.
    public struct Installed: Sendable, Codable, Equatable {
        /// The prefix the runtime was built for (and lives at).
        public var prefix: String
        /// The Swift toolchain's clang that built it, which builds the providers too.
        public var clang: String
        /// The toolchain's folder of libdispatch and the blocks runtime, which GNUstep links.
        public var toolchainLibraries: String
        /// Compiler flags for a `.m` file (gnustep-config's, without its optimisation and warnings).
        public var objcFlags: [String]
        /// Linker flags for the host: the runtime's libraries, found through rpaths.
        public var linkFlags: [String]

        public init(prefix: String, clang: String, toolchainLibraries: String, objcFlags: [String], linkFlags: [String])
        {
            self.prefix = prefix
            self.clang = clang
            self.toolchainLibraries = toolchainLibraries
            self.objcFlags = objcFlags
            self.linkFlags = linkFlags
        }

        /// The host's environment additions: GNUstep reads its configuration from the prefix.
        public var environment: [String: String] {
            ["GNUSTEP_CONFIG_FILE": prefix + "/etc/GNUstep/GNUstep.conf"]
        }
    }

    /// The runtime under `root`, or nil when there is none a build may use. Only a real folder
    /// with the manifest counts: setup builds through a symbolic link to a folder of its own and
    /// writes the manifest last, so a setup cut off at any point leaves nothing that passes.
    public static func installed(root: URL) -> Installed? {
        let prefix = prefix(root: root)
        var status = stat()
        guard lstat(prefix.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return nil }
        guard let data = try? Data(contentsOf: prefix.appendingPathComponent(manifestName)),
            let installed = try? JSONDecoder().decode(Installed.self, from: data),
            installed.prefix == prefix.path
        else { return nil }
        return installed
    }

    /// Why a `.m` provider cannot be built here: one line naming the command that fixes it.
    public static func missingSentence(root: URL) -> String {
        "an Objective-C provider needs the Objective-C runtime (libobjc2 and GNUstep's Foundation), which is not set up in \(root.path): run `tokendash setup objc` (about two minutes)"
    }
}
