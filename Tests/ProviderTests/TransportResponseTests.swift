import Foundation
import ProviderVocabulary
import Testing

/// Header names are read whatever their case: names given lower-case ASCII (the tap's) are kept as
/// they are, and any other is lower-cased, so both roads give the same headers.
@Suite(.timeLimit(.minutes(15))) struct TransportResponseTests {
    @Test func namesAreLowerCasedWhateverRoadTheyTake() {
        let given = ["date": "d", "content-type": "c", "x-tap-1": "t"]
        let kept = TransportResponse(status: 200, body: Data(), headers: given)
        #expect(kept.headers == given)
        #expect(kept.header("Content-Type") == "c")
        let mixed = TransportResponse(
            status: 200, body: Data(), headers: ["Date": "d", "content-type": "c", "ÄRGER": "u"])
        #expect(mixed.headers == ["date": "d", "content-type": "c", "ärger": "u"])
        #expect(mixed.header("DATE") == "d")
        #expect(mixed.header("Ärger") == "u")
    }
}
