import Foundation
import ProviderEvents
import ProviderHost
import ProviderVocabulary
import Spawning
import TestSupport
import Testing

/// Android factories of a few lines each, compiled with the real javac and run in the real JVM
/// host, each breaking the Android SDKs' contract one way: `getToken` blocking the update
/// thread, throwing, returning null or "", an expired token or another vehicle's, exiting, a class
/// that cannot be made, and one that reads stdin and starts a grandchild. Each is said once per
/// occurrence, in getToken's words, and the runner goes on.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct JavaHostTests {
    typealias Provider = SourceTokenProvider<VehicleAuthorizationContext>
    static let fixtures = HostMisbehaviourTests.fixtures.appendingPathComponent("java")

    /// The fixture `name`.java built for the JVM and its provider, called as the Android Driver
    /// SDK calls it: one thread, `getToken` returning, location updates every `updateInterval` s.
    static func provider(
        _ name: String, clock: SteppedClock = SteppedClock(), completionTimeout: TimeInterval = 10,
        updateInterval: TimeInterval = 5
    ) async throws -> (Provider, EventRecorder) {
        let source = try ProviderSourceFile.read(
            fixtures.appendingPathComponent("\(name).java").path, role: .driver,
            providerURL: "http://127.0.0.1:9/unused")
        let built = try await HostBuilder(swiftc: "", sanitize: false, cacheRoot: HostMisbehaviourTests.cache)
            .build(source)
        let launch = HostLaunch(
            executable: built.executable, fileName: "\(name).java", sourceText: source.buildText,
            environment: built.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }, sources: built.sources)
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        var settings = SourceSettings(completionTimeout: completionTimeout, startTimeout: 60, parallelCalls: 1)
        settings.contract = .synchronousReturn
        settings.locationUpdateInterval = updateInterval
        return (Provider(launch: launch, settings: settings, clock: clock, events: events), recorder)
    }

    static func failure(_ provider: Provider) async -> String? {
        guard case .failure(let error) = await HostMisbehaviourTests.fetch(provider).cancellingValue else { return nil }
        return "\(error)"
    }

    static func breaches(_ recorder: EventRecorder, _ name: String) -> [String] {
        recorder.all.compactMap { event in
            guard event.name == name, case .breach(let breach) = event.kind else { return nil }
            return breach.sentence
        }
    }

    @Test func aGetTokenThatBlocksIsKilledAtItsDeadlineWithTheUpdatesItHeldBack() async throws {
        let clock = SteppedClock()
        let (provider, recorder) = try await Self.provider("BlocksTheUpdateThread", clock: clock)
        let call = HostMisbehaviourTests.fetch(provider)
        #expect(await eventually { await provider.callsNotReturned == 1 })
        clock.advance(by: 9)
        #expect(await provider.callsNotReturned == 1)
        clock.advance(by: 1)
        let killed = try await recorder.next(named: "provider_killed")
        guard case .breach(let breach) = killed.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(
            breach.sentence.contains(
                "getToken(context) blocked the Driver SDK's location-update thread for 10 s, holding back 2 location updates"
            ), "\(breach.sentence)")
        guard case .failure(let error) = await call.cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        #expect("\(error)".contains("blocked the Driver SDK's location-update thread"), "\(error)")
        #expect(Self.breaches(recorder, "provider_killed").count == 1)
        await provider.shutdown()
    }

    @Test func anExceptionIsEachCallsFailureWithItsClassMessageLineAndCause() async throws {
        let (provider, recorder) = try await Self.provider("ThrowsFromGetToken")
        for _ in 0..<2 {
            let error = try #require(await Self.failure(provider))
            #expect(
                error.contains(
                    "getToken threw java.lang.RuntimeException: Could not get auth token at ThrowsFromGetToken.java:14, caused by java.io.IOException: backend said 503 at ThrowsFromGetToken.java:12"
                ), "\(error)")
        }
        // Thrown and caught by the SDK, as on a phone: the host runs on, one failure said per call.
        #expect(await provider.hostStarts == 1)
        for _ in 0..<2 { try await recorder.next(named: "fetch_failed") }
        #expect(recorder.all.filter { $0.name == "fetch_failed" }.count == 2)
        await provider.shutdown()
    }

    @Test(arguments: [
        ("ReturnsNull", "getToken returned null: the SDK has no token to send with its update"),
        ("ReturnsAnEmptyString", "getToken returned an empty string: the SDK has no token to send with its update"),
    ])
    func noTokenReturnedIsSaidAsReturned(_ name: String, _ sentence: String) async throws {
        let (provider, _) = try await Self.provider(name)
        let error = try #require(await Self.failure(provider))
        #expect(error.contains(sentence), "\(error)")
        #expect(await provider.hostStarts == 1)
        await provider.shutdown()
    }

    @Test func anExpiredTokenIsServedAfterExp() async throws {
        let (provider, recorder) = try await Self.provider("ReturnsAnExpiredToken")
        _ = await Self.failure(provider)
        let served = try await recorder.next(named: "served_after_exp")
        guard case .breach(let breach) = served.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(breach.sentence.contains("past its exp, which Fleet Engine refuses"), "\(breach.sentence)")
        // The same token again is not a second breach: one per token handed back.
        _ = await Self.failure(provider)
        for _ in 0..<2 { try await recorder.next(named: "fetch_failed") }
        #expect(Self.breaches(recorder, "served_after_exp").count == 1)
        await provider.shutdown()
    }

    @Test func anotherVehiclesTokenFailsOnItsClaim() async throws {
        let (provider, _) = try await Self.provider("ReturnsAnotherVehiclesToken")
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("vehicle-other"), "\(error)")
        #expect(error.contains("vehicle-1"), "\(error)")
        await provider.shutdown()
    }

    @Test func anExitEndsTheHostAndIsSaidWithItsStatusAndLastWords() async throws {
        let (provider, recorder) = try await Self.provider("ExitsInGetToken")
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("provider crashed: your class's host exited with status 3: giving up"), "\(error)")
        try await recorder.next(named: "provider_crashed")
        #expect(Self.breaches(recorder, "provider_crashed").count == 1)
        await provider.shutdown()
    }

    @Test(arguments: [
        ("NeedsAnApplication", "NeedsAnApplication has no constructor without arguments"),
        (
            "ThrowsInItsConstructor",
            "Uncaught exception in the constructor: java.lang.IllegalStateException: no settings yet at ThrowsInItsConstructor.java:7"
        ),
    ])
    func aClassThatCannotBeMadeIsACrashSaidInOneLine(_ name: String, _ words: String) async throws {
        let (provider, _) = try await Self.provider(name)
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("exited with status 1: "), "\(error)")
        #expect(error.contains(words), "\(error)")
        await provider.shutdown()
    }

    /// A factory nested in another class is made by its binary name (`FleetApp$Factory`): its
    /// getToken answers (with a string that is no JWT, which the rules then refuse).
    @Test func aFactoryNestedInItsAppsClassIsMadeAndCalled() async throws {
        let (provider, _) = try await Self.provider("FleetApp")
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("token is not a JWT"), "\(error)")
        #expect(await provider.hostStarts == 1)
        await provider.shutdown()
    }

    /// stdin is /dev/null (the protocol is on descriptors 3 and 4), and a grandchild that ignores
    /// SIGTERM ends with the host's process group.
    @Test func stdinIsEmptyAndAGrandchildEndsWithTheHost() async throws {
        let (provider, recorder) = try await Self.provider("ReadsStdinAndForks")
        // Its token is not a JWT, so the call fails; what matters is that the class answered it.
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("token is not a JWT"), "\(error)")
        let stdin = try await HostNeighbourTests.printed(recorder, containing: "stdin gave")
        #expect(stdin == "stdin gave -1", "\(stdin)")
        let pid = try await HostNeighbourTests.grandchild(recorder)
        #expect(!HostNeighbourTests.gone(pid))
        let host = try #require(await provider.hostProcess)
        await provider.shutdown()
        #expect(await eventually(every: .milliseconds(20)) { HostNeighbourTests.gone(pid) })
        #expect(await eventually(every: .milliseconds(20)) { !ProcessGroups.isAlive(host) })
    }
}
