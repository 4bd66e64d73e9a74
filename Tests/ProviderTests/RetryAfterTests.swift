import Foundation
import ProviderVocabulary
import Testing
import TokenJudging
import TokenReading

@Suite(.timeLimit(.minutes(15))) struct RetryAfterTests {
    /// RFC 9110's example instant, 1994-11-06 08:49:37 GMT.
    let instant = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func eachHTTPDateFormIsRead(_ text: String) {
        #expect(HTTPDate.parse(text, now: instant) == instant)
        #expect(RetryAfter.seconds(text, now: instant - 42) == 42)
    }

    @Test func secondsAreReadAndCapped() {
        #expect(RetryAfter.seconds("120", now: instant) == 120)
        #expect(RetryAfter.seconds(" 0 ", now: instant) == 0)
        #expect(RetryAfter.seconds("86400", now: instant) == 3600, "capped at an hour")
        #expect(
            RetryAfter.seconds("99999999999999999999999", now: instant) == 3600,
            "too many digits is still capped, not refused")
    }

    @Test func aDateInThePastMeansNow() {
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: instant + 100) == 0)
    }

    @Test func rfc850YearsMoreThan50YearsAheadAreLastCentury() {
        let in2030 = Date(timeIntervalSince1970: 1_893_456_000)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: in2030) == instant)
        #expect(
            HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT", now: in2030)
                == Date(timeIntervalSince1970: 915_148_800))
        #expect(
            HTTPDate.parse("Tuesday, 01-Jan-75 00:00:00 GMT", now: in2030)
                == Date(timeIntervalSince1970: 3_313_526_400), "45 years ahead stays ahead")
    }

    @Test(arguments: [
        "", "-5", "+5", "1.5", "soon", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49 1994", "Sun, 29 Feb 1994 08:49:37 GMT",
    ])
    func junkIsNoRetryAfter(_ text: String) {
        #expect(RetryAfter.seconds(text, now: instant) == nil, "\(text)")
    }

    @Test func aLeapDayIsADate() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test func theDecoderUsesIt() {
        #expect(TokenResponseDecoder.retryAfterSeconds("Sun Nov  6 08:49:40 1994", now: instant) == 3)
    }
}
