import Foundation
import ProviderVocabulary
import Testing

@testable import ProviderHost

/// An Objective-C class read as the SDK's provider: found by its `@interface`, in the file or in
/// a header it imports from beside it, placeholders filled as in Swift, and ThreadSanitizer's
/// reports on Objective-C frames read back to the file's lines. No network, no runtime needed.
@Suite(.timeLimit(.minutes(15)))
struct ObjCSourceFileTests {
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/seeds")

    /// The seed's lines as `name` in a fresh folder (with `beside` files next to it); the file's path.
    static func seedFile(
        _ seed: String, _ lines: ClosedRange<Int>, name: String, beside: [String: String] = [:]
    ) throws -> String {
        let text = try String(contentsOf: seeds.appendingPathComponent(seed), encoding: .utf8)
        let listing = text.split(separator: "\n", omittingEmptySubsequences: false)[
            (lines.lowerBound - 1)...(lines.upperBound - 1)
        ].joined(separator: "\n")
        let path = try ProviderSourceFileTests.file(listing + "\n", name: name)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        for (file, content) in beside { try Data(content.utf8).write(to: folder.appendingPathComponent(file)) }
        return path
    }

    @Test func theDriverPagesListingIsItsOwnClassWithItsPlaceholdersFilled() throws {
        let path = try Self.seedFile(
            "003_5d3db011ec98076c.txt", 105...201, name: "SampleAccessTokenProvider.m",
            beside: ["SampleAccessTokenProvider.h": "#import <Foundation/Foundation.h>\n"])
        let source = try ProviderSourceFile.read(path, role: .driver, providerURL: "http://127.0.0.1:1/session/driver")
        #expect(source.language == .objectiveC)
        #expect(source.className == "SampleAccessTokenProvider")
        #expect(source.fillings.map(\.line) == [8, 59, 60])
        #expect(
            source.fillings.map(\.placeholder) == [
                "INSERT_YOUR_TOKEN_PROVIDER_URL", "VEHICLE_TOKEN_KEY", "TOKEN_EXPIRATION",
            ])
        #expect(source.buildText.contains(#"PROVIDER_URL = @"http://127.0.0.1:1/session/driver";"#))
        #expect(source.buildText.contains(#"NSString *vehicleTokenKey = @"jwt";"#))
        #expect(source.buildText.contains(#"NSString *tokenExpirationKey = @"expirationTimestamp";"#))
    }

    /// The consumer page's class is declared in its header: found there, built from the .m.
    @Test func theConsumerPagesClassIsFoundInTheHeaderBesideIt() throws {
        let text = try String(
            contentsOf: Self.seeds.appendingPathComponent("000_600d290c07f2ea16.txt"), encoding: .utf8)
        let header = text.split(separator: "\n", omittingEmptySubsequences: false)[86...94].joined(separator: "\n")
        let path = try Self.seedFile(
            "000_600d290c07f2ea16.txt", 96...172, name: "SampleAccessTokenProvider.m",
            beside: ["SampleAccessTokenProvider.h": header + "\n"])
        let source = try ProviderSourceFile.read(path, role: .consumer, providerURL: "http://u")
        #expect(source.className == "SampleAccessTokenProvider")
        #expect(source.path == path, "the .m is the class's file, not its header")
        #expect(
            source.fillings.map(\.placeholder) == [
                "INSERT_YOUR_TOKEN_PROVIDER_URL", "TRIP_TOKEN_KEY", "TOKEN_EXPIRATION",
            ])
        // As the driver's: one line at the header's @interface.
        #expect(throws: SourceProblem.self) {
            try ProviderSourceFile.read(path, role: .driver, providerURL: "http://u")
        }
        do {
            _ = try ProviderSourceFile.read(path, role: .driver, providerURL: "http://u")
        } catch {
            let headerPath = (path as NSString).deletingPathExtension + ".h"
            #expect(
                error.description
                    == "\(headerPath):7: error: SampleAccessTokenProvider conforms to GMTCAuthorization, a consumer provider; pass it with --consumer-source"
            )
        }
    }

    @Test func aFileWithNoConformingInterfaceIsOneLocatedLine() throws {
        let path = try ProviderSourceFileTests.file(
            "@interface Helper : NSObject <NSCopying>\n@end\n// @interface Fake : NSObject <GMTDAuthorization>\n",
            name: "Helper.m")
        #expect(throws: SourceProblem.self) {
            try ProviderSourceFile.read(path, role: .driver, providerURL: "http://u")
        }
        do {
            _ = try ProviderSourceFile.read(path, role: .driver, providerURL: "http://u")
        } catch {
            #expect(
                error.description
                    == "\(path):1: error: no @interface conforming to <GMTDAuthorization> (the Driver SDK's token provider protocol) was found in this file or the headers it imports from beside it"
            )
        }
    }

    @Test func aClassInSeveralFilesIsOneLanguage() throws {
        let swift = try ProviderSourceFileTests.file("class A: NSObject, GMTDAuthorization {}\n")
        let objc = try ProviderSourceFileTests.file("@interface B : NSObject <GMTDAuthorization>\n@end\n", name: "B.m")
        do {
            _ = try ProviderSourceFile.read([swift, objc], role: .driver, providerURL: "http://u")
            Issue.record("two languages were taken for one class")
        } catch {
            #expect(
                error.description
                    == "\(objc): error: is not Swift like Provider.swift: a class's files are in one language")
        }
        let helper = try ProviderSourceFileTests.file("@implementation B\n@end\n", name: "Helper.m")
        let source = try ProviderSourceFile.read([helper, objc], role: .driver, providerURL: "http://u")
        #expect(source.parts.map(\.fileName) == ["B.m", "Helper.m"], "the class's own file first")
    }

    /// A real report from the driver sample in the Objective-C host, built with the toolchain's clang.
    @Test func aRaceReportOnObjectiveCFramesNamesBothLinesOfTheFile() {
        let report = """
            WARNING: ThreadSanitizer: data race (pid=6450)
              Read of size 8 at 0x720c00000520 by thread T3:
                #0 _i_SampleAccessTokenProvider__fetchTokenWithContext_completion_ /tmp/objc-proto/seed/SampleAccessTokenProvider.m:48:7 (host+0xfe7a8)
                #1 run /work/main/Sources/ProviderHost/HostPrograms/main.m:202:7 (host+0x100c09)
                #2 work /work/main/Sources/ProviderHost/HostPrograms/main.m:261:5 (host+0x100856)

              Previous write of size 8 at 0x720c00000520 by thread T6:
                #0 __63_i_SampleAccessTokenProvider__fetchTokenWithContext_completion__block_invoke /tmp/objc-proto/seed/SampleAccessTokenProvider.m:85:43 (host+0xff465)
                #1 _i_NSBlockOperation__main /tmp/objc-proto/build/gnustep-base-1.31.1/Source/NSOperation.m:596:7 (libgnustep-base.so.1.31+0x2732c4)

              Location is heap block of size 40 at 0x720c00000510 allocated by main thread:
                #0 calloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:708:5 (host+0x7be57)
                #1 allocate_class gc_none.c (libobjc.so.4.6+0x12e76)
                #2 __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16 (libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

              Thread T3 (tid=6455, running) created by main thread at:
                #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (host+0x7d6fa)
                #1 prepare /work/main/Sources/ProviderHost/HostPrograms/main.m:274:7 (host+0x100259)
                #2 start /work/main/Sources/ProviderHost/HostPrograms/main.m:303:11 (host+0x101e0d)
                #3 serve /work/main/Sources/ProviderHost/HostPrograms/main.m:370:11 (host+0x100718)
                #4 main /work/main/Sources/ProviderHost/HostPrograms/main.m:407:3 (host+0xfff4f)

              Thread T6 'NSOperationQ_0' (tid=6458, running) created by thread T4 at:
                #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (host+0x7d6fa)
                #1 _i_NSThread__start /tmp/objc-proto/build/gnustep-base-1.31.1/Source/NSThread.m:1562:7 (libgnustep-base.so.1.31+0x2cb03c)
                #2 _dispatch_continuation_pop crtstuff.c (libdispatch.so+0x2c087) (BuildId: cb8d2d3cfa8e51d96b2da370bac3f34f88b57c92)

            SUMMARY: ThreadSanitizer: data race /tmp/objc-proto/seed/SampleAccessTokenProvider.m:48:7 in _i_SampleAccessTokenProvider__fetchTokenWithContext_completion_
            """.split(separator: "\n", omittingEmptySubsequences: false)
        let race = RaceReport.parse(report, fileNames: ["SampleAccessTokenProvider.m"])
        #expect(race?.lines == [48, 85])
        #expect(race?.current.file == "SampleAccessTokenProvider.m")
        var source = Array(repeating: "", count: 97)
        source[47] = "  if (_cachedVehicleToken) {"
        source[84] = "          strongSelf->_cachedVehicleToken = JSONResponse[vehicleTokenKey];"
        let breach = race?.breach(sources: ["SampleAccessTokenProvider.m": source.joined(separator: "\n")])
        #expect(
            breach?.sentence
                == "data race: SampleAccessTokenProvider.m:85 writes _cachedVehicleToken while SampleAccessTokenProvider.m:48 reads it (the SDK calls from several threads)"
        )
    }
}
