/// The answers a forward proxy writes itself rather than relays: the 2xx that opens a tunnel,
/// and a refusal, a 502 or an injected fault's answer, after which it closes the connection.
/// One writer, so the provider's proxy and the tests' proxy frame them alike.
public enum ProxyAnswer {
    /// A `CONNECT`'s 2xx: from the blank line on, the connection is the tunnel's.
    public static let tunnelOpen = "HTTP/1.1 200 Connection Established\r\n\r\n"

    /// A whole answer, framed by its `Content-Length`, with `Connection: close`.
    public static func closing(status: Int, reason: String, headerLines: [String] = [], body: String = "") -> String {
        (["HTTP/1.1 \(status) \(reason)"] + headerLines + ["Content-Length: \(body.utf8.count)", "Connection: close"])
            .joined(separator: "\r\n") + "\r\n\r\n" + body
    }
}
