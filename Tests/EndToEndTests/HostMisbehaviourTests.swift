import Foundation
import ProviderEvents
import ProviderHost
import ProviderVocabulary
import TestSupport
import Testing

/// Test providers of a few lines each, built with the real swiftc and run in the real host, each
/// breaking one rule of the SDK's contract: tokendash names the breach and runs on.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct HostMisbehaviourTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// One build cache for the run, so each fixture is built once however many tests use it.
    static let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-host-tests-\(getpid())")

    /// The fixture `name` (`.swift`, or `.m` in Objective-C) built (without ThreadSanitizer, for
    /// speed: these breaches need none) and its provider.
    static func provider(
        _ name: String, language: String = "swift", clock: SteppedClock, completionTimeout: TimeInterval = 10,
        sanitize: Bool = false, parallelCalls: Int = 1, memoryLimit: Int = HostConnection.memoryLimitBytes
    ) async throws -> (SourceTokenProvider<VehicleAuthorizationContext>, EventRecorder) {
        let source = try ProviderSourceFile.read(
            fixtures.appendingPathComponent("\(name).\(language)").path, role: .driver,
            providerURL: "http://127.0.0.1:9/unused")
        // An Objective-C class is built with the runtime's clang: no swiftc needed.
        let swiftc = source.language == .swift ? try HostBuilder.findSwiftc(given: nil) : ""
        let built = try await HostBuilder(swiftc: swiftc, sanitize: sanitize, cacheRoot: cache).build(source)
        let launch = HostLaunch(
            executable: built.executable, fileName: "\(name).\(language)", sourceText: source.buildText,
            environment: built.environment.merging(["SWIFT_BACKTRACE": "enable=no", "PATH": "/usr/bin:/bin"]) { $1 },
            sources: built.sources)
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        var settings = SourceSettings(
            completionTimeout: completionTimeout, startTimeout: 30, parallelCalls: parallelCalls)
        settings.memoryLimit = memoryLimit
        let provider = SourceTokenProvider<VehicleAuthorizationContext>(
            launch: launch, settings: settings,
            clock: clock, events: events)
        return (provider, recorder)
    }

    /// One call of the SDK's, as a task the test can wait on later.
    static func fetch(_ provider: SourceTokenProvider<VehicleAuthorizationContext>) -> Call {
        Call(
            task: Task {
                do {
                    return .success(try await provider.fetchToken(for: VehicleAuthorizationContext(id: "vehicle-1")))
                } catch { return .failure(error) }
            })
    }

    struct Call {
        let task: Task<Result<String, any Error>, Never>
        /// The call's result; the test's cancellation (its time limit) cancels the call too, which the provider answers at once.
        var cancellingValue: Result<String, any Error> {
            get async { await task.cancellingValue }
        }
    }

    @Test func aCompletionNeverCalledIsCompletionMissingAtItsDeadline() async throws {
        let clock = SteppedClock()
        let (provider, recorder) = try await Self.provider("NeverCompletes", clock: clock)
        let call = Self.fetch(provider)
        #expect(await eventually { await provider.callsAwaitingCompletion == 1 })
        clock.advance(by: 9)
        #expect(await provider.callsAwaitingCompletion == 1)
        clock.advance(by: 1)
        let breach = try await recorder.next(named: "completion_missing")
        guard case .breach(let detail) = breach.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("never called its completion within 10 s"))
        guard case .failure(let error) = await call.cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        #expect("\(error)".contains("never called its completion"))
        await provider.shutdown()
    }

    @Test func aSecondCompletionIsCompletionRepeated() async throws {
        let (provider, recorder) = try await Self.provider("CompletesTwice", clock: SteppedClock())
        _ = await Self.fetch(provider).cancellingValue
        let breach = try await recorder.next(named: "completion_repeated")
        guard case .breach(let detail) = breach.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("called its completion twice"))
        await provider.shutdown()
    }

    @Test func aForceUnwrappedNilIsACrashThatTokendashOutlivesAndRestarts() async throws {
        let clock = SteppedClock()
        let (provider, recorder) = try await Self.provider("ForceUnwrapsNil", clock: clock)
        guard case .failure(let error) = await Self.fetch(provider).cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        let crash = try await recorder.next(named: "provider_crashed")
        guard case .breach(let detail) = crash.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("died of SIG"))
        #expect(detail.sentence.contains("Unexpectedly found nil"))
        #expect("\(error)".contains("provider crashed"))
        // Within the backoff the host is not started again; after it, it is (and crashes again).
        guard case .failure(let early) = await Self.fetch(provider).cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        #expect("\(early)".contains("restarted in 1 s"))
        clock.advance(by: 1)
        _ = await Self.fetch(provider).cancellingValue
        _ = try await recorder.next(named: "provider_crashed")
        await provider.shutdown()
    }

    @Test func aFetchTokenThatBlocksIsKilledAtTheDeadline() async throws {
        let clock = SteppedClock()
        let (provider, _) = try await Self.provider("BlocksItsCaller", clock: clock, completionTimeout: 5)
        let call = Self.fetch(provider)
        #expect(await eventually { await provider.callsNotReturned == 1 })
        clock.advance(by: 5)
        guard case .failure(let error) = await call.cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        #expect("\(error)".contains("blocked its caller's thread for 5 s"))
        #expect(await eventually { await !provider.hostReady })
        await provider.shutdown()
    }

    @Test func anInitThatNeverReturnsIsKilled() async throws {
        let clock = SteppedClock()
        let (provider, _) = try await Self.provider("HangsInInit", clock: clock)
        let call = Self.fetch(provider)
        // The start's deadline is set as the host starts: stepping past it then ends the wait.
        #expect(await eventually { await provider.hostStarted })
        clock.advance(by: 30)
        guard case .failure(let error) = await call.cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        #expect("\(error)".contains("init() did not return within 30 s"))
        await provider.shutdown()
    }

    @Test func aFloodOfPrintsIsStopped() async throws {
        let (provider, _) = try await Self.provider("PrintsMegabytes", clock: SteppedClock())
        guard case .failure(let error) = await Self.fetch(provider).cancellingValue else {
            Issue.record("the call succeeded")
            return
        }
        #expect("\(error)".contains("printed more than 1 MiB in a second"))
        await provider.shutdown()
    }

    @Test func whatTheClassPrintsIsInTheLogRedacted() async throws {
        let (provider, recorder) = try await Self.provider("PrintsItsToken", clock: SteppedClock())
        _ = await Self.fetch(provider).cancellingValue
        let printed = try await recorder.next(named: "provider_output")
        guard case .printed(let text) = printed.kind else {
            Issue.record("not a print")
            return
        }
        #expect(text.hasPrefix("fetched token eyJ"))
        #expect(text.hasSuffix(" for vehicle-1"))
        #expect(!text.contains("c2lnbmF0dXJlLW9mLXRoZS1wcmludGVkLXRva2Vu"), "\(text)")
        await provider.shutdown()
    }
}
