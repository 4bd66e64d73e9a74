import Foundation
import ProviderVocabulary
import TestSupport
import Testing

@testable import ProviderHost

@Suite(.timeLimit(.minutes(15)))
struct ProviderSourceFileTests {
    @Test func placeholdersAreFilledAndReported() {
        let text =
            "let u = \"INSERT_YOUR_TOKEN_PROVIDER_URL\"\nlet k = \"VEHICLE_TOKEN_KEY\"\nlet e = \"TOKEN_EXPIRATION\"\n"
        let (filled, fillings) = Placeholders.fill(
            text, role: .driver, providerURL: "http://127.0.0.1:1/session/driver")
        #expect(
            filled
                == "let u = \"http://127.0.0.1:1/session/driver\"\nlet k = \"jwt\"\nlet e = \"expirationTimestamp\"\n")
        #expect(fillings.map(\.line) == [1, 2, 3])
    }
}

extension ProviderSourceFileTests {
    static func file(_ text: String, name: String = "Provider.swift") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The one line reading `text` (saved as `name`) ends with, the file's path written FILE;
    /// "read" when it is read.
    static func problem(
        _ text: String, role: ProviderKind.Role = .driver, className: String? = nil, name: String = "Provider.swift"
    ) throws -> String {
        let path = try file(text, name: name)
        do {
            _ = try ProviderSourceFile.read(path, role: role, className: className, providerURL: "http://x")
            return "read"
        } catch {
            return error.description.replacingOccurrences(of: path, with: "FILE")
        }
    }

    @Test func oneConformingClassIsFoundAcrossLinesAndNotInComments() throws {
        let path = try Self.file(
            """
            import GoogleRidesharingDriver
            // class Old: NSObject, GMTDAuthorization {
            let note = "class Fake: GMTDAuthorization {"
            final class Mine: NSObject,
                GMTDAuthorization {
            }
            """)
        let source = try ProviderSourceFile.read(path, role: .driver, providerURL: "http://x")
        #expect(source.className == "Mine")
    }

    @Test func eachMistakeIsOneLocatedLine() throws {
        #expect(
            try Self.problem("let x = 1\n")
                == "FILE:1: error: no class conforming to GMTDAuthorization (the Driver SDK's token provider protocol) was found; is this the provider's Swift file?"
        )
        #expect(
            try Self.problem("\n\nclass C: NSObject, GMTCAuthorization {}\n")
                == "FILE:3: error: C conforms to GMTCAuthorization, a consumer provider; pass it with --consumer-source"
        )
        #expect(
            try Self.problem("class A: NSObject, GMTDAuthorization {}\nclass B: NSObject, GMTDAuthorization {}\n")
                == "FILE:2: error: 2 classes conform to GMTDAuthorization (A at line 1, B at line 2); choose one with --driver-class NAME"
        )
        #expect(
            try Self.problem("class A: NSObject, GMTDAuthorization {}\n", className: "B")
                == "FILE:1: error: no class B conforming to GMTDAuthorization; found A")
        let binary = try Self.file("")
        try Data([0xff, 0xfe, 0x00, 0x41]).write(to: URL(fileURLWithPath: binary))
        #expect(throws: SourceProblem.self) {
            try ProviderSourceFile.read(binary, role: .driver, providerURL: "http://x")
        }
    }

    @Test func compilerErrorsNameTheCustomersFile() {
        let output = """
            Provider.swift:42:35: error: value of optional type 'URL?' must be unwrapped to a value of type 'URL'
            Provider.swift:42:35: note: force-unwrap using '!' to abort execution if the optional value contains 'nil'
            main.swift:80:16: error: missing argument for parameter 'url' in call
            """
        #expect(
            CompilerOutput.errors(
                output, copies: ["Provider.swift": "/home/me/Provider.swift"], hostFile: "main.swift", tool: "swiftc")
                == [
                    "/home/me/Provider.swift:42:35: error: value of optional type 'URL?' must be unwrapped to a value of type 'URL'",
                    "(tokendash's provider host) main.swift:80:16: error: missing argument for parameter 'url' in call (the class needs an init() with no arguments)",
                ])
    }

    /// A Swift variable's race (`calls += 1` on two threads) is reported as a "Swift access race";
    /// its marked access comes without a line under -O, and is placed by the other access in the
    /// same function.
    @Test func aSwiftAccessRaceNamesItsLineFromTheOtherAccessInTheSameFunction() {
        let report = """
            WARNING: ThreadSanitizer: Swift access race (pid=28396)
              Modifying access of Swift variable at 0x720800000af0 by thread T6:
                #0 $s12YourProvider18CountsC10fetchTokenF /tmp/x/Counts.swift (provider-host+0xff436)
                #1 $s12YourProvider13TokendashHostO3runF /tmp/x/main.swift:189:18 (provider-host+0x104ed5)

              Previous write of size 1 at 0x720800000af0 by thread T1:
                #0 $s12YourProvider18CountsC10fetchTokenF /tmp/x/Counts.swift:18:15 (provider-host+0xff462)
                #1 $s12YourProvider13TokendashHostO3runF /tmp/x/main.swift:189:18 (provider-host+0x104ed5)

            SUMMARY: ThreadSanitizer: Swift access race /tmp/x/Counts.swift in $s12YourProvider18CountsC10fetchTokenF
            """.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(RaceReport.starts(report[0]))
        let race = RaceReport.parse(report, fileName: "Counts.swift")
        #expect(race?.current == RaceReport.Access(isWrite: true, line: 18, file: "Counts.swift"))
        #expect(race?.previous == RaceReport.Access(isWrite: true, line: 18, file: "Counts.swift"))
        // Another function's access keeps no line it cannot show.
        let elsewhere = report.map {
            $0.replacingOccurrences(of: "fetchTokenF /tmp/x/Counts.swift (", with: "otherF /tmp/x/Counts.swift (")
        }
        #expect(RaceReport.parse(elsewhere.map { Substring($0) }, fileName: "Counts.swift")?.lines == [18])
    }

    @Test func aRaceReportNamesTheTwoLinesAndTheVariable() {
        let report = """
            WARNING: ThreadSanitizer: data race (pid=5750)
              Read of size 8 at 0x721000000090 by thread T8:
                #0 $s4host...F /root/.cache/x/SampleAccessTokenProvider.swift:34:5 (host+0x10192e)
                #1 $s4hostyyYbcfU_ /root/.cache/x/main.swift:7:7 (host+0x10231e)

              Previous write of size 8 at 0x721000000090 by thread T7:
                #0 $s4host...F /root/.cache/x/SampleAccessTokenProvider.swift:63:28 (host+0xfff4e)
                #1 $s20FoundationNetworking15_ProtocolClientC crtstuff.c (libFoundationNetworking.so+0xd7ddf)

            SUMMARY: ThreadSanitizer: data race /root/.cache/x/SampleAccessTokenProvider.swift:34:5 in $s4host
            """.split(separator: "\n", omittingEmptySubsequences: false)
        let race = RaceReport.parse(report, fileName: "SampleAccessTokenProvider.swift")
        #expect(race?.lines == [34, 63])
        var source = Array(repeating: "", count: 70)
        source[33] = "    if let authToken = authToken,"
        source[62] = "      strongSelf.authToken = AuthToken("
        let breach = race?.breach(source: source.joined(separator: "\n"))
        #expect(breach?.sentence.hasPrefix("data race: line 63 writes authToken while line 34 reads it") == true)
        // With its file, each line as file:line (a class may come in several files).
        let named = race?.breach(source: source.joined(separator: "\n"), fileName: "SampleAccessTokenProvider.swift")
        #expect(
            named?.sentence.hasPrefix(
                "data race: SampleAccessTokenProvider.swift:63 writes authToken while SampleAccessTokenProvider.swift:34 reads it"
            ) == true)
    }
}
