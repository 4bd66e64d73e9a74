import Foundation
import ProviderVocabulary
import Testing
import TokenReading

/// A JWT part decodes as Foundation decodes its base64 translation: same bytes, same refusals.
@Suite(.timeLimit(.minutes(15))) struct Base64URLTests {
    /// The reference: the URL alphabet translated to the standard one, padded to a multiple of 4
    /// and given to Foundation, after the strict checks tokendash makes (no `+`, `/`, whitespace,
    /// at most two `=` and only at the end).
    static func reference(_ text: String) -> Data? {
        var digits = Substring(text)
        var padding = 0
        while digits.hasSuffix("=") {
            digits = digits.dropLast()
            padding += 1
        }
        guard padding <= 2, digits.count % 4 != 1,
            digits.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        var standard = digits.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    @Test func everyLengthAndByteDecodesAsFoundationDoes() {
        // Generated, not random: each run checks the same 20,000 strings, over the alphabet, its
        // padding, and bytes a hostile token may hold (standard base64's + and /, space, non-ASCII).
        let symbols = Array("AZaz09-_Qw=+/ é.")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 59)
            var text = ""
            var bits = state
            for _ in 0..<length {
                bits = bits &* 2_862_933_555_777_941_757 &+ 3_037_000_493
                text.append(symbols[Int(bits >> 60) % symbols.count])
            }
            if JWTInspector.base64URLDecode(text) != Self.reference(text) { mismatches.append(text) }
        }
        #expect(mismatches.isEmpty, "decoded unlike Foundation: \(mismatches.prefix(5))")
    }

    @Test func aTokensPartsDecodeToTheirJSON() throws {
        let header = try #require(JWTInspector.base64URLDecode("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT"}"#)
        // The same part padded, and cut to where a byte is not whole: the leftover bits are dropped.
        #expect(JWTInspector.base64URLDecode("YQ==") == Data("a".utf8))
        #expect(JWTInspector.base64URLDecode("YR") == Data("a".utf8))
        #expect(JWTInspector.base64URLDecode("Y") == nil)
        #expect(JWTInspector.base64URLDecode("YQ=a") == nil)
        #expect(JWTInspector.base64URLDecode("YQ===") == nil)
        #expect(JWTInspector.base64URLDecode("") == Data())
    }
}
