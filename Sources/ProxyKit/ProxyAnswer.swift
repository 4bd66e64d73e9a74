import NIOCore
import NIOEmbedded
import NIOHTTP1

/// The answers a forward proxy writes itself rather than relays: the 2xx that opens a tunnel,
/// and a refusal, a 502 or an injected fault's answer, after which it closes the connection.
/// One writer, NIOHTTP1's response encoder, so the provider's proxy and the tests' proxy frame
/// them alike and neither writes HTTP by hand. The framing headers are this file's to set: a
/// tunnel's 2xx has no body and no framing, which the encoder would otherwise add.
public enum ProxyAnswer {
    /// A `CONNECT`'s 2xx: from the blank line on, the connection is the tunnel's.
    public static let tunnelOpen = encoded(
        HTTPResponseHead(version: .http1_1, status: .ok), body: nil, reason: "Connection Established")

    /// A whole answer, framed by its `Content-Length`, with `Connection: close`. `headerLines`
    /// are `Name: value`; one without a colon is left out.
    public static func closing(status: Int, reason: String, headerLines: [String] = [], body: String = "") -> String {
        var headers = HTTPHeaders()
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                name: String(line[..<colon]), value: String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        return encoded(head, body: body, reason: reason)
    }

    /// `head` and `body` as the encoder writes them, the status line's reason phrase `reason`.
    static func encoded(_ head: HTTPResponseHead, body: String?, reason: String) -> String {
        var head = head
        head.status = .custom(code: head.status.code, reasonPhrase: reason)
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        let channel = EmbeddedChannel(handler: HTTPResponseEncoder(configuration: configuration))
        defer { _ = try? channel.finish() }
        // An EmbeddedChannel's writes complete at once; they cannot fail for an encoder this simple.
        try? channel.writeOutbound(HTTPServerResponsePart.head(head))
        if let body, !body.isEmpty {
            try? channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))))
        }
        try? channel.writeOutbound(HTTPServerResponsePart.end(nil))
        var text = ""
        while let part = try? channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: part) }
        return text
    }
}
