import Foundation
import ProviderVocabulary
import TestSupport
import Testing

@testable import ProviderHost

/// The hosts' programs as they stand in the repo, built against a stub class and run: a change
/// that breaks a host's own file fails here, not at a customer's first build.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct HostProgramBuildTests {
    @Test func theSwiftHostFileBuildsAsWrittenAndServesACall() async throws {
        let source = try ProviderSourceFile.read(
            HostMisbehaviourTests.fixtures.appendingPathComponent("TokendashStubProvider.swift").path,
            role: .driver, providerURL: "http://127.0.0.1:9/unused")
        #expect(
            StandInSDK.hostMain(role: .driver, className: source.className) == HostProgramSources.swift,
            "the stub's host is the file, unchanged")
        let (provider, _) = try await HostMisbehaviourTests.provider("TokendashStubProvider", clock: SteppedClock())
        // The stub's string came back through the host's completion line: the core then judges it (not a JWT).
        await #expect(throws: (any Error).self) {
            try await provider.fetchToken(for: VehicleAuthorizationContext(id: "vehicle-1"))
        }
        #expect(await provider.callsAwaitingCompletion == 0)
        await provider.shutdown()
    }

    /// The Objective-C host's file as it stands, built with the runtime against the stub class.
    @Test func theObjectiveCHostFileBuildsAsWrittenAndServesACall() async throws {
        let source = try ProviderSourceFile.read(
            HostMisbehaviourTests.fixtures.appendingPathComponent("TokendashStubProvider.m").path,
            role: .driver, providerURL: "http://127.0.0.1:9/unused")
        #expect(source.language == .objectiveC)
        #expect(source.className == "TokendashStubProvider")
        let (provider, _) = try await ObjCHostMisbehaviourTests.provider("TokendashStubProvider", clock: SteppedClock())
        // The stub's string came back through the host's completion line: the core then judges it (not a JWT).
        await #expect(throws: (any Error).self) {
            try await provider.fetchToken(for: VehicleAuthorizationContext(id: "vehicle-1"))
        }
        #expect(await provider.callsAwaitingCompletion == 0)
        await provider.shutdown()
    }
}
