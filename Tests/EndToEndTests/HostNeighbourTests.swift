import Foundation
import ObjCRuntime
import ProviderHost
import ProviderVocabulary
import Spawning
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A customer's class as a bad neighbour, built with the real compilers and run in the real
/// hosts: it reads stdin, starts processes that ignore SIGTERM, prints endless lines, dies over
/// and over, exits behind ThreadSanitizer's status. None of it reaches tokendash's protocol,
/// outlives the host, or goes unsaid.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct HostNeighbourTests {
    typealias Provider = SourceTokenProvider<VehicleAuthorizationContext>

    static func failure(_ provider: Provider) async -> String? {
        guard case .failure(let error) = await HostMisbehaviourTests.fetch(provider).cancellingValue else { return nil }
        return "\(error)"
    }

    /// The text of the next `provider_output` line that contains `part`.
    static func printed(_ recorder: EventRecorder, containing part: String) async throws -> String {
        let event = try await recorder.next("provider_output with \(part)") {
            if case .printed(let text) = $0.kind { text.contains(part) } else { false }
        }
        guard case .printed(let text) = event.kind else { return "" }
        return text
    }

    /// Whether process `pid` is gone: no such process, or a zombie (dead, waiting to be reaped by init).
    static func gone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // The state follows the command's closing parenthesis.
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// The process ID a fixture printed as `grandchild PID`.
    static func grandchild(_ recorder: EventRecorder) async throws -> pid_t {
        let line = try await printed(recorder, containing: "grandchild ")
        return try #require(line.split(separator: " ").last.flatMap { pid_t($0) }, "\(line)")
    }

    // MARK: - stdin

    @Test(arguments: ["swift", "m"])
    func whatTheClassReadsFromStdinIsNothingOfTheProtocol(_ language: String) async throws {
        let (provider, recorder) = try await HostMisbehaviourTests.provider(
            "ReadsStdin", language: language, clock: SteppedClock(), parallelCalls: 2)
        for _ in 0..<3 {
            // Each call is answered by the class itself: none was read away by an earlier one.
            let error = try #require(await Self.failure(provider))
            #expect(error.contains("your code's completion gave an error"), "\(error)")
        }
        let line = try await Self.printed(recorder, containing: "read(0)")
        #expect(line.contains("read(0): 0 | standardInput: 0 bytes"), "\(line)")
        #expect(line.hasPrefix(language == "swift" ? "readLine: nil" : "fgets: nil"), "\(line)")
        #expect(!line.contains("call"), "\(line)")
        #expect(await provider.hostStarts == 1)
        await provider.shutdown()
    }

    // MARK: - processes

    @Test(arguments: ["swift", "m"])
    func aGrandchildThatIgnoresSIGTERMEndsWithItsHost(_ language: String) async throws {
        let (provider, recorder) = try await HostMisbehaviourTests.provider(
            "SpawnsAGrandchild", language: language, clock: SteppedClock())
        _ = await Self.failure(provider)
        let pid = try await Self.grandchild(recorder)
        #expect(!Self.gone(pid))
        let host = try #require(await provider.hostProcess)
        await provider.shutdown()
        // TERM, which it ignores, then KILL after the grace: waited for as a fact, not a time.
        #expect(await eventually(every: .milliseconds(20)) { Self.gone(pid) })
        #expect(await eventually(every: .milliseconds(20)) { !ProcessGroups.isAlive(host) })
    }

    @Test func aGrandchildOfAHostThatCrashedEndsWithIt() async throws {
        let (provider, recorder) = try await HostMisbehaviourTests.provider(
            "SpawnsAGrandchildAndCrashes", clock: SteppedClock())
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("provider crashed"), "\(error)")
        let pid = try await Self.grandchild(recorder)
        #expect(await eventually(every: .milliseconds(20)) { Self.gone(pid) })
        await provider.shutdown()
    }

    /// Through the binary: `watch` ends on SIGTERM, and at its exit nothing of the host is left.
    @Test func nothingTheClassStartedOutlivesWatch() async throws {
        let fixture = HostMisbehaviourTests.fixtures.appendingPathComponent("SpawnsAGrandchild.swift").path
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", fixture, "--only", "driver", "--no-sanitize", "--update-interval", "1",
                "--duration", "300",
            ], name: "source-grandchild",
            environment: BinaryRunner.environment(["XDG_CACHE_HOME": HostMisbehaviourTests.cache.path]))
        let pid = try #require(
            try await watch.await(#""event":"provider_output"[^\n]*grandchild ([0-9]+)"#).flatMap { pid_t($0) },
            "\(watch.output)")
        #expect(!Self.gone(pid))
        await watch.stop()
        #expect(await eventually(every: .milliseconds(20)) { Self.gone(pid) })
    }

    // MARK: - output

    @Test func aLineOverTheLimitIsCutWithTheBytesDroppedSaid() async throws {
        let (provider, recorder) = try await HostMisbehaviourTests.provider("PrintsALongLine", clock: SteppedClock())
        _ = await Self.failure(provider)
        let line = try await Self.printed(recorder, containing: "xxxx")
        #expect(line.hasPrefix(String(repeating: "x", count: HostConnection.lineLimit) + " … "), "\(line.suffix(80))")
        #expect(
            line.hasSuffix("[\(10_000 - HostConnection.lineLimit) more bytes of this line dropped]"),
            "\(line.suffix(80))")
        await provider.shutdown()
    }

    @Test func tenMegabytesInOneLineIsAFloodAndAKillSaid() async throws {
        let (provider, recorder) = try await HostMisbehaviourTests.provider(
            "PrintsTenMegabytesInOneLine", clock: SteppedClock())
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("printed more than 1 MiB in a second"), "\(error)")
        let killed = try await recorder.next(named: "provider_killed")
        guard case .breach(let detail) = killed.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("provider killed: your code printed more than 1 MiB in a second"))
        await provider.shutdown()
    }

    @Test func aHostOverItsMemoryLimitIsKilledAndSaid() async throws {
        let (provider, recorder) = try await HostMisbehaviourTests.provider(
            "HoardsMemory", clock: SteppedClock(), memoryLimit: 256 << 20)
        let error = try #require(await Self.failure(provider))
        #expect(error.contains("MiB of memory, over the 256 MiB limit"), "\(error)")
        let killed = try await recorder.next(named: "provider_killed")
        guard case .breach(let detail) = killed.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(detail.sentence.contains("over the 256 MiB limit"), "\(detail.sentence)")
        await provider.shutdown()
    }

    // MARK: - kills, said; restarts, backed off

    /// Every host started and killed for blocking is one `provider_killed` line with its cause,
    /// and the waits between starts grow 1, 2, 4 s.
    @Test func everyKillIsSaidAndRestartsBackOff() async throws {
        let clock = SteppedClock()
        let (provider, recorder) = try await HostMisbehaviourTests.provider(
            "BlocksItsCaller", clock: clock, completionTimeout: 5)
        for (round, wait) in [1, 2, 4].enumerated() {
            let call = HostMisbehaviourTests.fetch(provider)
            #expect(await eventually { await provider.callsNotReturned == 1 })
            clock.advance(by: 5)
            _ = await call.cancellingValue
            let killed = try await recorder.next(named: "provider_killed")
            guard case .breach(let detail) = killed.kind else {
                Issue.record("not a breach")
                return
            }
            #expect(detail.sentence.contains("blocked its caller's thread for 5 s"), "\(detail.sentence)")
            #expect(detail.sentence.hasSuffix("started again at the next call after \(wait) s"), "\(detail.sentence)")
            #expect(await provider.hostStarts == round + 1)
            // Within the wait, no host is started; at its end, one is.
            let early = try #require(await Self.failure(provider))
            #expect(early.contains("restarted in \(wait) s"), "\(early)")
            clock.advance(by: TimeInterval(wait))
        }
        let said = recorder.all.filter { $0.name == "provider_killed" }.count
        #expect(said == 3)
        #expect(await provider.hostStarts == 3)
        await provider.shutdown()
    }

    /// ThreadSanitizer ends a process that reported a race with status 66, hiding the class's own
    /// `exit(0)`: both are said.
    @Test func anExitBehindThreadSanitizersStatusIsSaidWithBoth() async throws {
        let (provider, recorder) = try await HostMisbehaviourTests.provider(
            "RacesThenExits", clock: SteppedClock(), sanitize: true)
        // One call at a time, each on another of the host's threads: the second races with the first.
        _ = await Self.failure(provider)
        _ = await Self.failure(provider)
        _ = try await recorder.next(named: "data_race")
        _ = await Self.failure(provider)
        let crash = try await recorder.next(named: "provider_crashed")
        guard case .breach(let detail) = crash.kind else {
            Issue.record("not a breach")
            return
        }
        #expect(
            detail.sentence.contains(
                "exited with status 66, ThreadSanitizer's after the race it reported (your class's own exit(0) is behind it)"
            ), "\(detail.sentence)")
        await provider.shutdown()
    }
}
