import Foundation
import ProviderVocabulary
import Testing
import TokenReading

/// What a token backend's answer says of its expiry, in the words a served-after-exp breach
/// gives a customer: the field, its number, how it reads, and what a misreading makes of it.
@Suite(.timeLimit(.minutes(15)))
struct BackendExpiryTests {
    static let now = Date(timeIntervalSince1970: 1_795_894_637)

    @Test func googlesSampleBackendsMillisecondsAreNamedAndTheirMisreadingSaid() throws {
        let body = Data(
            #"{"jwt":"eyJ.x.y","creationTimestamp":1795894637000,"expirationTimestamp":1795894645000}"#.utf8)
        let expiry = try #require(BackendExpiry.read(answer: body))
        #expect(expiry == BackendExpiry(key: "expirationTimestamp", value: 1_795_894_645_000))
        #expect(expiry.reading == .epochMilliseconds)
        #expect(
            expiry.explanation(now: Self.now)
                == "the backend sent expirationTimestamp: 1795894645000, epoch milliseconds (2026-11-28T19:37:25Z); read as seconds it is about 57,000 years away, so a class reading it so keeps its token for good"
        )
    }

    @Test func epochSecondsAndDurationsReadAsTheyAre() throws {
        let seconds = try #require(BackendExpiry.read(answer: Data(#"{"token":"t","expires_in":1795894645}"#.utf8)))
        #expect(seconds.reading == .epochSeconds)
        #expect(
            seconds.explanation(now: Self.now).hasSuffix(
                "epoch seconds (2026-11-28T19:37:25Z); added to now it is about 57 years away, so a class adding it keeps its token for good"
            ))
        let duration = try #require(BackendExpiry.read(answer: Data(#"{"access_token":"t","expires_in":3600}"#.utf8)))
        #expect(duration.reading == .duration)
        #expect(
            duration.explanation(now: Self.now)
                == "the backend sent expires_in: 3600, a duration of 3600 s; the class kept its token past it"
        )
    }

    @Test func anAnswerWithoutAKnownExpiryGivesNone() {
        #expect(BackendExpiry.read(answer: Data(#"{"jwt":"eyJ.x.y"}"#.utf8)) == nil)
        #expect(BackendExpiry.read(answer: Data("eyJ.x.y".utf8)) == nil)
        #expect(BackendExpiry.read(answer: Data(#"{"jwt":"t","expirationTimestamp":"soon"}"#.utf8)) == nil)
    }
}
