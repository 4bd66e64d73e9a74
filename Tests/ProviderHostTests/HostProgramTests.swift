import FleetAuth
import Foundation
import Testing

@testable import ProviderHost

/// The hosts' programs are real files (Sources/ProviderHost/HostPrograms), embedded in the binary
/// by scripts/embed-host-programs.sh: the embedded copies must be the files, and what the builder
/// replaces in them must stand there exactly once.
@Suite(.timeLimit(.minutes(15)))
struct HostProgramTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ProviderHost/HostPrograms")

    @Test func theEmbeddedSwiftHostIsTheFile() throws {
        let file = try String(contentsOf: Self.folder.appendingPathComponent("main.swift"), encoding: .utf8)
        #expect(HostProgramSources.swift + "\n" == file, "run scripts/embed-host-programs.sh")
    }

    /// The Objective-C host and the SDK's stand-in headers it is built with.
    @Test(arguments: [
        ("main.m", HostProgramSources.objectiveC),
        ("objc/GoogleRidesharingDriver/GoogleRidesharingDriver.h", HostProgramSources.driverHeader),
        ("objc/GoogleRidesharingConsumer/GoogleRidesharingConsumer.h", HostProgramSources.consumerHeader),
    ])
    func theEmbeddedObjectiveCFilesAreTheFiles(name: String, embedded: String) throws {
        let file = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
        #expect(embedded + "\n" == file, "run scripts/embed-host-programs.sh")
    }

    @Test(arguments: [ProviderKind.Role.driver, .consumer])
    func eachReplacedPartStandsOnceInTheSwiftHost(role: ProviderKind.Role) {
        let file = HostProgramSources.swift + "\n"
        for (stub, _) in StandInSDK.hostReplacements(role: role, className: "X") {
            #expect(file.components(separatedBy: stub).count == 2, "\(stub) once in main.swift")
        }
        let main = StandInSDK.hostMain(role: role, className: "SampleProvider")
        #expect(main.contains("import \(StandInSDK.moduleName(role))\n"))
        #expect(main.contains("let provider = SampleProvider()\n"))
        #expect(!main.contains("= TokendashStubProvider()"))
        #expect(
            main.contains(role == .driver ? "GMTDAuthorizationContext(vehicleID:" : "GMTCAuthorizationContext(tripID:"))
    }
}
