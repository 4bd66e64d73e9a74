import Foundation
import Testing

@testable import ObjCRuntime

/// Where the Objective-C runtime is and when it counts as set up, the packages setup asks for,
/// and its tarballs' checks: no network, no build.
@Suite(.timeLimit(.minutes(15)))
struct ObjCRuntimeTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-objc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func manifest(prefix: String) throws -> Data {
        try JSONEncoder().encode(
            ObjCRuntime.Installed(prefix: prefix, clang: "/c", toolchainLibraries: "/l", objcFlags: [], linkFlags: []))
    }

    @Test func theRuntimeLivesUnderTheUsersCacheByVersions() {
        #expect(
            ObjCRuntime.root(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"]).path == "/x/tokendash/objc")
        #expect(ObjCRuntime.root(environment: ["HOME": "/h"]).path == "/h/.cache/tokendash/objc")
        #expect(ObjCRuntime.versions == "libobjc2-2.3_gnustep-make-2.9.3_gnustep-base-1.31.1")
    }

    /// Only a real folder with its manifest, for this very prefix, is a runtime.
    @Test func onlyAFinishedFolderCounts() throws {
        let root = try Self.folder()
        let prefix = ObjCRuntime.prefix(root: root)
        #expect(ObjCRuntime.installed(root: root) == nil, "nothing there")
        // A setup cut off after its manifest was written but before the rename: a link to its folder.
        let staging = root.appendingPathComponent(ObjCRuntime.versions + ".building-42")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try Self.manifest(prefix: prefix.path).write(to: staging.appendingPathComponent(ObjCRuntime.manifestName))
        try FileManager.default.createSymbolicLink(at: prefix, withDestinationURL: staging)
        #expect(ObjCRuntime.installed(root: root) == nil, "a link is a setup still running or cut off")
        try FileManager.default.removeItem(at: prefix)
        // A folder without its manifest, then one whose manifest was written for another place.
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        #expect(ObjCRuntime.installed(root: root) == nil)
        try Self.manifest(prefix: "/elsewhere").write(to: prefix.appendingPathComponent(ObjCRuntime.manifestName))
        #expect(ObjCRuntime.installed(root: root) == nil)
        try Self.manifest(prefix: prefix.path).write(to: prefix.appendingPathComponent(ObjCRuntime.manifestName))
        #expect(
            ObjCRuntime.installed(root: root)?.environment["GNUSTEP_CONFIG_FILE"] == prefix.path
                + "/etc/GNUstep/GNUstep.conf")
    }

    @Test func whatIsMissingIsOneAptGetLine() {
        let all: Set = [
            "cmake", "ninja-build", "make", "robin-map-dev", "libcurl4-gnutls-dev", "libffi-dev", "libxml2-dev",
            "libgnutls28-dev", "libicu-dev",
        ]
        #expect(RuntimeSetup.installLine(installed: all) == nil)
        #expect(
            RuntimeSetup.installLine(installed: all.subtracting(["robin-map-dev", "libicu-dev"]))
                == "apt-get install robin-map-dev libicu-dev")
        // libcurl's OpenSSL flavour serves as well as the GnuTLS one (the two conflict in Debian).
        #expect(
            RuntimeSetup.installLine(
                installed: all.subtracting(["libcurl4-gnutls-dev"]).union(["libcurl4-openssl-dev"]))
                == nil)
    }

    @Test func aMissingOrAlteredTarballIsNamedWithTheSumItShouldHave() async throws {
        let sources = try Self.folder()
        let setup = RuntimeSetup(
            root: try Self.folder(), sources: sources, toolchain: .init(clang: "/c", libraries: "/l"), report: { _ in })
        let first = ObjCRuntime.releases[0]
        do {
            _ = try await setup.obtainSources(in: sources)
            Issue.record("no tarball was taken")
        } catch {
            #expect(
                error
                    == .source(
                        "\(sources.path)/libobjc2-2.3.tar.gz: missing (expected libobjc2 2.3, SHA-256 \(first.sha256))")
            )
        }
        try Data("not the release".utf8).write(to: sources.appendingPathComponent(first.file))
        do {
            _ = try await setup.obtainSources(in: sources)
            Issue.record("an altered tarball was taken")
        } catch {
            #expect(
                error
                    == .source(
                        "\(sources.path)/libobjc2-2.3.tar.gz: SHA-256 is 7df2fd503649d891b89bc9740bad1b1139fdc690759813e07dd8781f5140ad07, expected \(first.sha256) (libobjc2 2.3)"
                    ))
        }
    }

    @Test func aClangThatIsNotExecutableIsOneLine() {
        #expect(throws: SetupProblem.noClang("--clang /nonexistent/clang is not an executable file")) {
            try RuntimeSetup.Toolchain.find(given: "/nonexistent/clang")
        }
    }

    /// gnustep-config's flags as a provider's build takes them: no optimisation, warnings or
    /// outside headers; ARC on; rpaths to the prefix and the toolchain.
    @Test func gnustepConfigsFlagsAreMadeAProvidersFlags() {
        let objc =
            "-MMD -MP -I/p/include -DGNUSTEP -DGNUSTEP_BASE_LIBRARY=1 -DGNUSTEP_BASE_LIBRARY=1 -Wall -g -O2 -fblocks -I. -I/root/GNUstep/Library/Headers -I/p/include"
        #expect(
            Build.providerFlags(objc, prefix: "/p")
                == ["-I/p/include", "-DGNUSTEP", "-DGNUSTEP_BASE_LIBRARY=1", "-fblocks", "-fobjc-arc"])
        let libs =
            "-L/p/lib -Wl,-rpath,/p/lib -pthread -L/root/GNUstep/Library/Libraries -L/p/lib -lgnustep-base -lobjc"
        #expect(
            Build.linkFlags(libs, prefix: "/p", toolchainLibraries: "/t")
                == [
                    "-L/p/lib", "-pthread", "-lgnustep-base", "-lobjc", "-L/t", "-ldispatch", "-Wl,-rpath,/p/lib",
                    "-Wl,-rpath,/t",
                ])
    }
}
