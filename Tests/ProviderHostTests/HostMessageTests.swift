import JSONValues
import ProviderVocabulary
import Testing

@testable import ProviderHost

/// The host's lines: its own two shapes read on the fast path, and the same as the decoder reads them.
@Suite(.timeLimit(.minutes(15)))
struct HostMessageTests {
    @Test func theHostsOwnLinesReadAsTheDecoderReadsThem() {
        let lines = [
            #"{"t":"returned","call":7}"#, #"{"t":"completion","call":12,"token":"eyJ.abc.def"}"#,
            #"{"t":"completion","call":3,"token":""}"#,
        ]
        for line in lines {
            let fast = HostMessage.parseHostsOwn(Substring(line))
            #expect(fast != nil, "\(line)")
            // The decoder alone: a space after the brace leaves the fast path.
            #expect(fast == HostMessage.parse(Substring("{ " + line.dropFirst())), "\(line)")
        }
        #expect(
            HostMessage.parse(#"{"t":"completion","call":12,"token":"eyJ.abc.def"}"#)
                == .completion(call: 12, token: "eyJ.abc.def", error: nil))
    }

    @Test func theClasssExitStatusIsRead() {
        #expect(HostMessage.parse(#"{"t":"exiting","status":0}"#) == .exiting(status: 0))
        #expect(HostMessage.parse(#"{"t":"exiting","status":3}"#) == .exiting(status: 3))
        #expect(HostMessage.parse(#"{"t":"exiting","status":99999999999}"#) == nil)
        #expect(HostMessage.parse(#"{"t":"exiting"}"#) == nil)
    }

    @Test func anythingElseGoesToTheDecoder() {
        for line in [
            #"{"t":"completion","call":1,"token":"a\"b"}"#, #"{"t":"completion","call":1,"error":"missingData"}"#,
            #"{"t":"returned","call":}"#, #"{"t":"returned","call":1} "#,
            #"{"t":"completion","call":99999999999999999999,"token":"x"}"#,
        ] {
            #expect(HostMessage.parseHostsOwn(Substring(line)) == nil, "\(line)")
        }
        #expect(
            HostMessage.parse(#"{"t":"completion","call":1,"token":"a\"b"}"#)
                == .completion(call: 1, token: "a\"b", error: nil))
        #expect(
            HostMessage.parse(#"{"t":"completion","call":1,"error":"missingData"}"#)
                == .completion(call: 1, token: nil, error: "missingData"))
    }

    /// The request line is written by hand: it must be the JSON JSONEncoder writes, for any ID.
    @Test func aRequestLineIsWhatTheEncoderWrites() {
        var generator = SystemRandomNumberGenerator()
        let awkward: [String] = [
            "", "vehicle-0001", "a\"b", "back\\slash", "slash/ok", "tab\tnew\nline\r",
            "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
            "é ü 車 🚗", "\u{2028}\u{2029}", "\\u0041", "}\n{\"call\":9",
        ]
        let pieces = awkward.flatMap { $0.unicodeScalars.map(String.init) } + ["x", "1"]
        let random = (0..<500).map { _ in
            (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }
                .joined()
        }
        for id in awkward + random {
            let call = Int.random(in: 0...Int.max, using: &generator)
            for task in [nil, id, "task-1"] {
                var fields: JSONObject = ["call": .int(Int64(call)), "id": .string(id)]
                if let task { fields["task"] = .string(task) }
                let expected = JSONValue.object(fields).description + "\n"
                #expect(HostMessage.request(call: call, id: id, task: task) == expected, "\(Array(id.unicodeScalars))")
            }
        }
    }
}
