import ProviderVocabulary
import Testing

@testable import ProviderHost

/// The wait before a host that ended is started again: doubling from 1 s to 30 s for ends in a
/// row, from 1 s again after a healthy stretch. Time is passed in: no clock runs.
@Suite(.timeLimit(.minutes(15)))
struct RestartBackoffTests {
    @Test func endsInARowWaitOneTwoFourUpToThirtySeconds() {
        var backoff = RestartBackoff()
        let waits = (0..<8).map { _ in backoff.wait(afterRunning: 0.5) }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30, 30])
    }

    @Test func aHostThatRanAHealthyStretchStartsTheCountAgain() {
        var backoff = RestartBackoff()
        for _ in 0..<5 { _ = backoff.wait(afterRunning: 2) }
        #expect(backoff.wait(afterRunning: RestartBackoff.healthyStretch - 1) == 30)
        #expect(backoff.wait(afterRunning: RestartBackoff.healthyStretch) == 1)
        #expect(backoff.wait(afterRunning: 0) == 2)
    }

    @Test func aThousandEndsInARowStillWaitThirtySeconds() {
        var backoff = RestartBackoff()
        for _ in 0..<1_000 { _ = backoff.wait(afterRunning: 0) }
        #expect(backoff.wait(afterRunning: 0) == 30)
    }

    /// ThreadSanitizer's 66 after a race it reported is said with the class's own status behind it;
    /// a 66 without a race is the class's own.
    @Test func sanitizersStatusIsSaidWithTheClasssOwn() {
        typealias P = SourceTokenProvider<VehicleAuthorizationContext>
        #expect(
            P.howItEnded(status: 66, classStatus: 0, raced: true)
                == "exited with status 66, ThreadSanitizer's after the race it reported (your class's own exit(0) is behind it)"
        )
        #expect(P.howItEnded(status: 66, classStatus: 66, raced: false) == "exited with status 66")
        #expect(P.howItEnded(status: 128 + 6, classStatus: nil, raced: true).hasPrefix("died of SIGABRT"))
    }
}
