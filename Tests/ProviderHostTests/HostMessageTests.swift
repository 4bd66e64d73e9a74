import Testing

@testable import ProviderHost

/// The host's lines: its own two shapes read on the fast path, and the same as the decoder reads them.
@Suite(.timeLimit(.minutes(3)))
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
}
