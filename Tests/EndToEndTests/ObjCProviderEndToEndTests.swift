import FlyingFox
import Foundation
import TestSupport
import Testing

@testable import ObjCRuntime

/// The customer's Objective-C provider through the real binary: the Objective-C listings of
/// Google's "Get authorization tokens" pages (the seeds beside the repo), saved as a customer
/// saves them and unchanged, built with the runtime `tokendash setup objc` made (CI's `.ci/run`
/// sets it up from ../shared/vendor/objc before the tests) and run against the embedded server.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct ObjCProviderEndToEndTests {
    static let seeds = SourceProviderEndToEndTests.seeds
    static let fixtures = HostMisbehaviourTests.fixtures

    /// The seed's lines `lines` as the file `name` in `folder`.
    static func save(_ seed: String, _ lines: ClosedRange<Int>, as name: String, in folder: URL) throws {
        let text = try String(contentsOf: seeds.appendingPathComponent(seed), encoding: .utf8)
        let listing = text.split(separator: "\n", omittingEmptySubsequences: false)[
            (lines.lowerBound - 1)...(lines.upperBound - 1)
        ].joined(separator: "\n")
        try Data((listing + "\n").utf8).write(to: folder.appendingPathComponent(name))
    }

    /// The driver page's single listing as SampleAccessTokenProvider.m with a header beside it
    /// that imports Foundation; the consumer page's .h and .m as they are printed.
    static func samples() throws -> (driver: String, consumer: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-objc-seeds-\(getpid())")
        let driver = base.appendingPathComponent("driver")
        let consumer = base.appendingPathComponent("consumer")
        for folder in [driver, consumer] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try save("003_5d3db011ec98076c.txt", 105...201, as: "SampleAccessTokenProvider.m", in: driver)
        try Data("#import <Foundation/Foundation.h>\n".utf8).write(
            to: driver.appendingPathComponent("SampleAccessTokenProvider.h"))
        try save("000_600d290c07f2ea16.txt", 87...95, as: "SampleAccessTokenProvider.h", in: consumer)
        try save("000_600d290c07f2ea16.txt", 96...172, as: "SampleAccessTokenProvider.m", in: consumer)
        return (
            driver.appendingPathComponent("SampleAccessTokenProvider.m").path,
            consumer.appendingPathComponent("SampleAccessTokenProvider.m").path
        )
    }

    @Test func theRuntimeIsSetUpAndASecondSetupSaysSo() async throws {
        #expect(ObjCRuntime.installed(root: ObjCRuntime.root()) != nil, "run tokendash setup objc first (.ci/run does)")
        let result = try await BinaryRunner.run(
            [
                "setup", "objc", "--sources",
                Self.seeds.deletingLastPathComponent().appendingPathComponent("vendor/objc").path,
            ])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("the Objective-C runtime is already there: "))
    }

    /// Both samples side by side, tokens of 8 s asked for every second: within the lifetime and
    /// two intervals each fetches, serves its expired token (the sample adds the backend's
    /// absolute expiry to now), Fleet Engine refuses it, and ThreadSanitizer names both lines.
    @Test func theSeedsSamplesRunInBothPanesWithTheirFlawsNamed() async throws {
        let (driver, consumer) = try Self.samples()
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", driver, "--consumer-source", consumer, "--lifetime", "8",
                "--update-interval", "1", "--fleet-engine-interval", "1", "--duration", "60",
            ], name: "objc-watch", environment: BinaryRunner.environment())
        for role in ["driver", "consumer"] {
            #expect(try await watch.await(#""provider":"\#(role)","id":"[a-z]+-0001","event":"(fetched)""#) != nil)
        }
        // ThreadSanitizer names whichever of the sample's races the threads' timing shows first:
        // both its lines are in the file, each a line touching the variable it names.
        for (role, folder) in [("driver", driver), ("consumer", consumer)] {
            let race = try #require(
                try await watch.await(#""provider":"\#(role)"[^\n]*"event":"data_race","message":"([^"]*)""#))
            let text = try String(contentsOfFile: folder, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            let named = try #require(
                race.firstMatch(of: /data race: SampleAccessTokenProvider\.m:(\d+) (?:writes|touches) (_[A-Za-z]+)/),
                "\(race)")
            let variable = String(named.output.2)
            let lines = race.matches(of: /SampleAccessTokenProvider\.m:(\d+)/).compactMap { Int($0.output.1) }
            #expect(!lines.isEmpty)
            for line in lines {
                #expect(line >= 1 && line <= text.count && text[line - 1].contains(variable), "\(race)")
            }
        }
        for role in ["driver", "consumer"] {
            // The sample adds the backend's epoch milliseconds to now: the breach says what the backend sent.
            let served = try await watch.await(
                #""provider":"\#(role)","id":"[a-z]+-0001","event":"served_after_exp","message":"([^"]*)""#)
            #expect(served?.contains("the backend sent expirationTimestamp: ") == true, "\(served ?? "none")")
            #expect(served?.contains(", epoch milliseconds (") == true)
            let refusal = try await watch.await(
                #"("provider":"\#(role)".*"event":"fleet_engine_call".*"status":"UNAUTHENTICATED".*)"#)
            #expect(refusal?.contains("JWT expired") == true)
        }
        #expect(watch.output.contains("SampleAccessTokenProvider.m:8: filled INSERT_YOUR_TOKEN_PROVIDER_URL"))
        #expect(watch.output.contains("SampleAccessTokenProvider.m:42: filled TRIP_TOKEN_KEY with jwt"))
        await watch.stop()
    }

    @Test func aCompileErrorIsClangsLocatedLineAndExit2() async throws {
        let path = Self.fixtures.appendingPathComponent("DoesNotCompile.m").path
        let result = try await BinaryRunner.run(
            ["watch", "--driver-source", path, "--only", "driver", "--duration", "1"],
            environment: BinaryRunner.environment())
        #expect(result.status == 2)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("\(path):10:"), "\(first)")
        #expect(first.contains(": error: expected ';'"), "\(first)")
    }

    @Test func aConsumerClassGivenAsTheDriverIsOneLocatedLine() async throws {
        let (_, consumer) = try Self.samples()
        let result = try await BinaryRunner.run(
            ["watch", "--driver-source", consumer, "--only", "driver", "--duration", "1"],
            environment: BinaryRunner.environment())
        #expect(result.status == 2)
        let header = (consumer as NSString).deletingPathExtension + ".h"
        #expect(
            result.stderr.hasPrefix(
                "\(header):7: error: SampleAccessTokenProvider conforms to GMTCAuthorization, a consumer provider; pass it with --consumer-source"
            ), "\(result.stderr)")
    }

    /// Without the runtime a `.m` source is one line naming the command that sets it up.
    @Test func withoutTheRuntimeTheLineNamesSetup() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-no-objc-\(getpid())")
        let path = Self.fixtures.appendingPathComponent("NeverCompletes.m").path
        let result = try await BinaryRunner.run(
            ["watch", "--driver-source", path, "--only", "driver", "--duration", "1"],
            environment: BinaryRunner.environment(["XDG_CACHE_HOME": empty.path]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("run `tokendash setup objc`"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// A setup cut off (Ctrl-C once libobjc2 is built) leaves its link and folder, which no
    /// build takes for a runtime.
    @Test func anInterruptedSetupIsNotUsed() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-cut-objc-\(getpid())")
        defer { try? FileManager.default.removeItem(at: cache) }
        let sources = Self.seeds.deletingLastPathComponent().appendingPathComponent("vendor/objc").path
        let setup = try BackgroundProcess(
            URL(fileURLWithPath: "/usr/bin/setsid"), [BinaryRunner.binary.path, "setup", "objc", "--sources", sources],
            name: "objc-setup", environment: BinaryRunner.environment(["XDG_CACHE_HOME": cache.path]))
        #expect(try await setup.await(#"setup objc: (libobjc2 2\.3 built)"#) != nil)
        setup.interruptGroup()
        await setup.stop()
        let root = ObjCRuntime.root(environment: ["XDG_CACHE_HOME": cache.path])
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: ObjCRuntime.prefix(root: root).path)
        #expect(link.contains(".building-"))
        #expect(FileManager.default.fileExists(atPath: link + "/include/objc/runtime.h"), "libobjc2 was installed")
        #expect(ObjCRuntime.installed(root: root) == nil)
        let result = try await BinaryRunner.run(
            [
                "watch", "--driver-source", Self.fixtures.appendingPathComponent("NeverCompletes.m").path, "--only",
                "driver", "--duration", "1",
            ], environment: BinaryRunner.environment(["XDG_CACHE_HOME": cache.path]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("run `tokendash setup objc`"), "\(result.stderr)")
    }

    /// A class whose fetching is in a second file: the flag given twice, both files built, the
    /// placeholders filled in each, the header beside them found.
    @Test func aClassInTwoFilesIsBuiltFromBoth() async throws {
        let folder = Self.fixtures.appendingPathComponent("Split")
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", folder.appendingPathComponent("SplitProvider.m").path, "--driver-source",
                folder.appendingPathComponent("TokenFetcher.m").path, "--only", "driver", "--no-sanitize",
                "--update-interval", "1", "--duration", "30",
            ], name: "objc-split", environment: BinaryRunner.environment())
        #expect(try await watch.await(#""provider":"driver","id":"vehicle-0001","event":"(fetched)""#) != nil)
        #expect(watch.output.contains("SplitProvider.m:12: filled INSERT_YOUR_TOKEN_PROVIDER_URL"))
        #expect(watch.output.contains("TokenFetcher.m:14: filled VEHICLE_TOKEN_KEY with jwt"))
        await watch.stop()
    }
}

/// Setup's download path over loopback: the three releases served as a project's release page
/// serves them (one behind a redirect, as GitHub's are), each checked against its pinned sum.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct ObjCRuntimeDownloadTests {
    static let vendor = SourceProviderEndToEndTests.seeds.deletingLastPathComponent().appendingPathComponent(
        "vendor/objc")

    /// A server of the vendored tarballs; `tamper` names a file served with a byte changed.
    static func server(tamper: String? = nil) async throws -> LoopbackServer {
        try await LoopbackServer.start { request in
            let name = String(request.path.split(separator: "/").last ?? "")
            if request.path.hasPrefix("/moved/") {
                return HTTPResponse(statusCode: .found, headers: [.location: "/files/\(name)"])
            }
            guard var data = FileManager.default.contents(atPath: vendor.appendingPathComponent(name).path) else {
                return HTTPResponse(statusCode: .notFound)
            }
            if name == tamper { data[data.count / 2] ^= 0xff }
            return HTTPResponse(statusCode: .ok, body: data)
        }
    }

    static func setup(_ base: String, into work: URL) -> RuntimeSetup {
        var setup = RuntimeSetup(
            root: work, sources: nil, toolchain: .init(clang: "/c", libraries: "/l"), report: { _ in })
        setup.releases = ObjCRuntime.releases.enumerated().map { index, release in
            var served = release
            served.url = "\(base)/\(index == 0 ? "moved" : "files")/\(release.file)"
            return served
        }
        return setup
    }

    @Test func theReleasesAreDownloadedAndChecked() async throws {
        let server = try await Self.server()
        defer { Task { await server.stop() } }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-objc-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let files = try await Self.setup(server.base, into: work).obtainSources(in: work)
        #expect(files.map(\.lastPathComponent) == ObjCRuntime.releases.map(\.file))
        for (file, release) in zip(files, ObjCRuntime.releases) {
            #expect(try RuntimeSetup.sha256(of: file) == release.sha256)
        }
    }

    @Test func aTamperedDownloadIsNamedWithTheSumItShouldHave() async throws {
        let tampered = ObjCRuntime.releases[1]
        let server = try await Self.server(tamper: tampered.file)
        defer { Task { await server.stop() } }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-objc-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            _ = try await Self.setup(server.base, into: work).obtainSources(in: work)
            Issue.record("a tampered tarball was taken")
        } catch {
            #expect(error.description.contains("\(tampered.file): SHA-256 is "), "\(error)")
            #expect(error.description.contains(", expected \(tampered.sha256) (gnustep-make 2.9.3)"), "\(error)")
        }
    }

    @Test func aMissingReleaseIsTheServersAnswer() async throws {
        let server = try await Self.server()
        defer { Task { await server.stop() } }
        var setup = Self.setup(server.base, into: FileManager.default.temporaryDirectory)
        setup.releases[2].url = "\(server.base)/files/no-such.tar.gz"
        do {
            _ = try await setup.obtainSources(in: FileManager.default.temporaryDirectory)
            Issue.record("a missing release was taken")
        } catch {
            #expect(error == .source("\(server.base)/files/no-such.tar.gz: the server answered 404 Not Found"))
        }
    }
}
