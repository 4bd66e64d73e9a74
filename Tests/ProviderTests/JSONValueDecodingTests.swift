import Foundation
import JSONValues
import ProviderVocabulary
import Testing

/// `JSONValue.decode` reads plain JSON by hand and leaves the rest to `JSONDecoder`: whatever the
/// input, it must read exactly as `JSONDecoder` alone reads it (the same value, or an error for both).
@Suite(.timeLimit(.minutes(15))) struct JSONValueDecodingTests {
    static func decoder(_ data: Data) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: data) }

    /// A fixed seed: a failure names an input that fails again.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: [
        #"{"jwt":"eyJ.eyJ.c2ln","creationTimestamp":1764230000000,"expirationTimestamp":1764233600000}"#,
        #"{"alg":"RS256","typ":"JWT","kid":"k1"}"#,
        #"{"authorization":{"tripid":"café 車両-7"},"exp":1,"iat":-5,"x":[true,false,null,[],{}]}"#,
        #" { "a" : "tab\tand \"quote\" \\ \/ \n" } "#,
        // JSONDecoder's to judge: fractions, exponents, big numbers, -0, \u escapes, repeats, bare values.
        #"{"iat":1.0}"#, #"{"iat":1e3}"#, #"{"iat":12345678901234567890}"#, #"{"iat":-0}"#, #"{"iat":01}"#,
        #"{"a":"\u0041"}"#, #"{"a":1,"a":2}"#, #""bare""#, "42", "[1,]", #"{"a":1}x"#, "", "{", #"{"a":"\#u{01}"}"#,
        "\u{FEFF}{}", #"{"e\#u{301}":1,"é":2}"#,
        // Objects within objects, whose members wait together until each ends: the same key at
        // each depth, a repeat within a nested one only, members after a nested one closes.
        #"{"a":{"a":{"a":1},"b":[{"a":2},{"b":3}]},"b":{"a":4},"c":5}"#, #"{"a":{"b":1,"b":2},"c":3}"#,
        #"{"a":{},"b":{"c":{}},"d":[{}]}"#,
        // Past the count where repeats are found by a walk: one without, one with.
        "{" + (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}",
        "{" + (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","k7":1}"#,
    ])
    func readsAsJSONDecoderReads(_ text: String) {
        let data = Data(text.utf8)
        #expect((try? JSONValue.decode(data)) == Self.decoder(data), "\(text.debugDescription)")
    }

    @Test func bytesThatAreNotUTF8ReadAsJSONDecoderReadsThem() {
        for bytes: [UInt8] in [
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D], [0x5B, 0x22, 0xC3, 0x22, 0x5D],
        ] {
            #expect((try? JSONValue.decode(Data(bytes))) == Self.decoder(Data(bytes)))
        }
    }

    /// Random strings of JSON's pieces, valid and not: 20,000 of them, each read both ways.
    /// Long strings are scanned eight bytes at a time up to the first that may end or escape
    /// them: a quote, an escape, a control character or a byte past ASCII at every place in
    /// strings of up to 40 bytes reads as `JSONDecoder` reads it.
    @Test func everyPlaceInALongStringReadsAsJSONDecoderReadsIt() {
        let specials = [#"""#, #"\n"#, #"\""#, "\u{1}", "é", "\u{7F}", #"\u0041"#, #"\x"#]
        var mismatches: [String] = []
        for length in 0...40 {
            for place in 0...length {
                for special in specials {
                    let plain = String(repeating: "a", count: length)
                    let inner = plain.prefix(place) + special + plain.dropFirst(place)
                    let text = #"{"k":""# + inner + #"","n":1}"#
                    let data = Data(text.utf8)
                    if (try? JSONValue.decode(data)) != Self.decoder(data) { mismatches.append(text) }
                }
                let data = Data((#"[""# + String(repeating: "b", count: length) + #""]"#).utf8)
                if (try? JSONValue.decode(data)) != Self.decoder(data) { mismatches.append("b×\(length)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func randomPiecesReadAsJSONDecoderReadsThem() {
        let pieces = [
            "{", "}", "[", "]", ",", ":", #""a""#, #""b""#, #""é""#, "\"e\u{301}\"", "1", "-1", "0", "-0", "01",
            "1.0", "1e3", "123456789012345678", "1234567890123456789", "99999999999999999999", "true", "false",
            "null", "tru", " ", "\n", "\t", #""\n""#, #""\u0041""#, #""\/""#, #""\x""#, "\"a\u{1}\"", "-", #""""#,
        ]
        var random = SplitMix(state: 34)
        var mismatches: [String] = []
        for _ in 0..<20000 {
            let text = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }.joined()
            let data = Data(text.utf8)
            if (try? JSONValue.decode(data)) != Self.decoder(data) { mismatches.append(text) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}

/// A JSON object keeps its members in the order written and is looked up by key.
@Suite(.timeLimit(.minutes(15))) struct JSONObjectTests {
    @Test func membersKeepTheirOrderAndCompareInAnyOrder() throws {
        let text = #"{"z":1,"a":{"y":true,"b":null},"m":"x"}"#
        guard case .object(let object) = try JSONValue.decode(Data(text.utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["z", "a", "m"])
        #expect(object == ["m": .string("x"), "a": .object(["b": .null, "y": .bool(true)]), "z": .int(1)])
        #expect(object != ["m": .string("x"), "a": .object(["b": .null, "y": .bool(false)]), "z": .int(1)])
        #expect(object != ["m": .string("x"), "z": .int(1)])
        // Encoded and read back, the same members (JSONEncoder orders keys as it likes; a value's
        // `description` sorts them).
        #expect(try JSONDecoder().decode(JSONObject.self, from: JSONEncoder().encode(object)) == object)
        #expect(JSONValue.object(object).description == #"{"a":{"b":null,"y":true},"m":"x","z":1}"#)
    }

    @Test func settingAKeyReplacesRemovesOrAddsIt() {
        var object: JSONObject = ["a": .int(1), "b": .int(2)]
        object["a"] = .int(3)
        object["b"] = nil
        object["c"] = .null
        #expect(object.keys == ["a", "c"])
        #expect(object["a"] == .int(3))
        #expect(object["b"] == nil)
        // A repeated key in a literal keeps the last, as a Dictionary built from it would.
        let repeated: JSONObject = ["k": .int(1), "k": .int(2)]
        #expect(repeated.count == 1 && repeated["k"] == .int(2))
    }

    @Test func manyMembersCompareByKey() {
        let members = (0..<40).map { ("k\($0)", JSONValue.int(Int64($0))) }
        let forward = JSONObject(Dictionary(uniqueKeysWithValues: members))
        var backward = JSONObject()
        for (key, value) in members.reversed() { backward[key] = value }
        #expect(forward == backward)
        backward["k3"] = .int(-1)
        #expect(forward != backward)
    }
}
