import Foundation
import ObjCRuntime
import ProviderHost
import ProviderVocabulary
import TestSupport
import Testing

/// Objective-C test providers of a few lines each, built with the runtime's clang and run in the
/// real Objective-C host, each breaking one rule of the SDK's contract: tokendash names the
/// breach as it does for Swift, and runs on.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct ObjCHostMisbehaviourTests {
    /// The Objective-C fixture `name` built and its provider.
    static func provider(_ name: String, clock: SteppedClock)
        async throws -> (SourceTokenProvider<VehicleAuthorizationContext>, EventRecorder)
    {
        try await HostMisbehaviourTests.provider(name, language: "m", clock: clock)
    }

    @Test func aCompletionNeverCalledIsCompletionMissingAtItsDeadline() async throws {
        let clock = SteppedClock()
        let (provider, recorder) = try await Self.provider("NeverCompletes", clock: clock)
        let call = HostMisbehaviourTests.fetch(provider)
        #expect(await eventually { await provider.callsAwaitingCompletion == 1 })
        clock.advance(by: 10)
        let breach = try await recorder.next(named: "completion_missing")
        guard case .breach(let detail) = breach.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("never called its completion within 10 s"))
        guard case .failure = await call.cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        await provider.shutdown()
    }

    @Test func aSecondCompletionIsCompletionRepeatedWithTheNSErrorInWords() async throws {
        let (provider, recorder) = try await Self.provider("CompletesTwice", clock: SteppedClock())
        guard case .failure(let error) = await HostMisbehaviourTests.fetch(provider).cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        #expect("\(error)".contains("NSURLErrorDomain -1011"), "\(error)")
        let breach = try await recorder.next(named: "completion_repeated")
        guard case .breach(let detail) = breach.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("called its completion twice"))
        await provider.shutdown()
    }

    /// An exception nothing catches is a crash whose line names it; the host is started again.
    @Test func anUncaughtExceptionIsACrashNamedByItsExceptionAndTheHostRestarts() async throws {
        let clock = SteppedClock()
        let (provider, recorder) = try await Self.provider("RaisesAnException", clock: clock)
        guard case .failure = await HostMisbehaviourTests.fetch(provider).cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        let crash = try await recorder.next(named: "provider_crashed")
        guard case .breach(let detail) = crash.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("died of SIGABRT"), "\(detail.sentence)")
        #expect(detail.sentence.contains(": Uncaught exception NSRangeException: "), "\(detail.sentence)")
        clock.advance(by: 1)
        _ = await HostMisbehaviourTests.fetch(provider).cancellingValue
        _ = try await recorder.next(named: "provider_crashed")
        await provider.shutdown()
    }

    @Test func whatNSLogPrintsIsInTheLogRedacted() async throws {
        let (provider, recorder) = try await Self.provider("LogsItsToken", clock: SteppedClock())
        _ = await HostMisbehaviourTests.fetch(provider).cancellingValue
        let printed = try await recorder.next(named: "provider_output")
        guard case .printed(let text) = printed.kind else {
            Issue.record("not a print")
            return
        }
        #expect(text.contains("fetched token eyJ"), "\(text)")
        #expect(text.hasSuffix(" for vehicle-1"), "\(text)")
        #expect(!text.contains("c2lnbmF0dXJlLW9mLXRoZS1wcmludGVkLXRva2Vu"), "\(text)")
        await provider.shutdown()
    }
}
