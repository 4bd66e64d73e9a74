import NIOCore
import NIOEmbedded
import NIOHTTP1

/// A message's head, framed already (the bytes up to the blank line, with it or without), decoded by NIOHTTP1's own
/// parser on a pipeline of its own, as a server or a client decodes it: what a proxy that relays
/// bytes reads of a request or an answer passing, never parsed by hand. The channel lives for one
/// call, on the calling thread, as an `EmbeddedChannel` must.
public enum HeadDecoding {
    /// The request head in `text`; nil when NIOHTTP1 does not take it.
    public static func request(_ text: String) -> HTTPRequestHead? {
        guard case .head(let head)? = decode(text, HTTPRequestDecoder(), as: HTTPServerRequestPart.self) else {
            return nil
        }
        return head
    }

    /// The answer head in `text`; nil when NIOHTTP1 does not take it.
    public static func response(_ text: String) -> HTTPResponseHead? {
        // The decoder matches each answer to a request it saw go out (a HEAD's has no body): one GET.
        let asked = HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"))
        guard case .head(let head)? = decode(text, HTTPResponseDecoder(), as: HTTPClientResponsePart.self, after: asked)
        else { return nil }
        return head
    }

    private static func decode<Decoder: ByteToMessageDecoder, Part>(
        _ text: String, _ decoder: Decoder, as: Part.Type, after outbound: HTTPClientRequestPart? = nil
    ) -> Part? {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(decoder))
        defer { _ = try? channel.finish() }
        do {
            if let outbound { try channel.writeOutbound(outbound) }
            try channel.writeInbound(ByteBuffer(string: text.hasSuffix("\r\n\r\n") ? text : text + "\r\n\r\n"))
            return try channel.readInbound(as: Part.self)
        } catch {
            return nil
        }
    }
}
