import Foundation
import ProviderVocabulary
import Testing

@testable import ProviderHost

/// The hosts' programs are real files (Sources/ProviderHost/HostPrograms) that SwiftPM embeds in
/// the binary: what the builder replaces in them must stand there exactly once.
@Suite(.timeLimit(.minutes(15)))
struct HostProgramTests {
    @Test(arguments: [ProviderKind.Role.driver, .consumer])
    func eachReplacedPartStandsOnceInTheSwiftHost(role: ProviderKind.Role) {
        let file = HostProgramSources.swift
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
