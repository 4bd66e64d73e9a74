import ProviderVocabulary
import Testing

@Suite(.timeLimit(.minutes(15))) struct BackoffPolicyTests {
    @Test func doublesFromOneSecondToSixty() {
        let policy = BackoffPolicy()
        let delays = (1...9).map { policy.delay(afterFailures: $0, unit: 0.5) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60])
    }

    @Test func jitterStaysWithinTwentyPercent() {
        let policy = BackoffPolicy()
        #expect(policy.delay(afterFailures: 3, unit: 0) == 3.2)
        #expect(abs(policy.delay(afterFailures: 3, unit: 0.999_999) - 4.8) < 0.001)
        #expect(policy.delay(afterFailures: 0, unit: 0.5) == 0)
    }
}
