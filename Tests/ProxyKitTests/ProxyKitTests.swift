import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import NetworkAddresses
import ProxyKit
import Testing

/// The parts the three proxies share, each alone: no socket (the CONNECT on an EmbeddedChannel).
@Suite(.timeLimit(.minutes(15)))
struct ProxyKitTests {
    @Test func anIPv6AddressIsBracketedAndReadBack() throws {
        #expect(HostPort(host: "::1", port: 8443).description == "[::1]:8443")
        #expect(HostPort(host: "[::1]", port: 80).host == "::1")
        #expect(HostPort(host: "example.com", port: 443).description == "example.com:443")
        #expect(HostPort.bracketed("fe80::1") == "[fe80::1]" && HostPort.bracketed("10.0.0.1") == "10.0.0.1")
        #expect(HostPort(parsing: "[::1]:8443") == HostPort(host: "::1", port: 8443))
        #expect(HostPort(parsing: "example.com:80") == HostPort(host: "example.com", port: 80))
        #expect(HostPort(parsing: "[::1]", defaultPort: 443) == HostPort(host: "::1", port: 443))
        #expect(HostPort(parsing: "example.com", defaultPort: 80)?.port == 80)
        // Unbracketed, an IPv6 address's last group would be read as its port.
        #expect(HostPort(parsing: "::1:8443") == nil)
        #expect(HostPort(parsing: "example.com") == nil)
        #expect(HostPort(parsing: "example.com:99999") == nil)
        #expect(HostPort(parsing: ":80") == nil)
        #expect(HostPort(parsing: "[::1]x") == nil)
    }

    @Test func hopByHopHeadersGoAndSoDoTheNamesConnectionLists() {
        let headers = HTTPHeaders([
            ("Host", "example.com"), ("Connection", "keep-alive, X-Trace"), ("Keep-Alive", "timeout=5"),
            ("X-Trace", "abc"), ("TE", "trailers"), ("Upgrade", "h2c"), ("Proxy-Connection", "keep-alive"),
            ("Authorization", "Bearer t"), ("Transfer-Encoding", "chunked"), ("Cookie", "a=b"),
        ])
        let kept = HopByHop.removed(from: headers)
        #expect(kept.map(\.name) == ["Host", "Authorization", "Transfer-Encoding", "Cookie"])
        // Connection naming Transfer-Encoding does not take the body's framing away.
        let framed = HopByHop.removed(
            from: HTTPHeaders([("Connection", "transfer-encoding"), ("Transfer-Encoding", "chunked")]))
        #expect(framed.map(\.name) == ["Transfer-Encoding"])
        let plain = HTTPHeaders([("Accept", "*/*")])
        #expect(HopByHop.removed(from: plain) == plain)
    }

    @Test func theConnectIsWrittenByNIOsEncoderWithItsCredential() throws {
        let channel = EmbeddedChannel()
        let established = try ConnectTunnel.add(
            to: channel.pipeline.syncOperations, target: HostPort(host: "::1", port: 8443), proxy: "proxy test",
            credential: "Basic dTpw", timeout: .seconds(10), on: channel.eventLoop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait()
        var written = ByteBuffer()
        while let part = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(var bytes) = part { written.writeBuffer(&bytes) }
        }
        #expect(
            String(buffer: written)
                == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic dTpw\r\n\r\n")
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n"))
        channel.embeddedEventLoop.run()
        #expect(try established.wait().status == .ok)
        // The tunnel is the channel's now: what comes next passes as bytes.
        try channel.writeInbound(ByteBuffer(string: "\u{16}\u{03}\u{01}"))
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "\u{16}\u{03}\u{01}")
        _ = try channel.finish()
    }

    @Test func aRefusedTunnelQuotesTheProxysStatusLine() throws {
        let channel = EmbeddedChannel()
        let established = try ConnectTunnel.add(
            to: channel.pipeline.syncOperations, target: HostPort(host: "backend.test", port: 1), proxy: "proxy test",
            credential: nil, timeout: .seconds(10), on: channel.eventLoop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"))
        do {
            _ = try established.wait()
            Issue.record("a 403 opened the tunnel")
        } catch let refused as ConnectTunnel.Refused {
            #expect(refused.description == "proxy test refused the tunnel to backend.test:1: HTTP/1.1 403 Forbidden")
            #expect(refused.answer?.status == .forbidden)
        }
        _ = try? channel.finish()
    }

    @Test func connectionFailuresHaveOneWording() {
        #expect(
            ConnectionFailure.words(IOError(errnoCode: ECONNREFUSED, reason: "connect"), host: "h")
                == "connection refused")
        #expect(ConnectionFailure.words(ChannelError.connectTimeout(.seconds(1)), host: "h") == "connection timed out")
        #expect(ConnectionFailure.socketFailure(errno: EHOSTUNREACH) == "host unreachable")
        #expect(ConnectionFailure.words(CancellationError(), host: "h") == nil)
    }

    @Test func aProxyRequestHeadIsDecodedByNIO() throws {
        let head = try ProxyRequestHead(
            parsing: "GET http://[::1]:8080/a?b HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: X-Hop\r\nX-Hop: 1\r\n"
                + "Proxy-Authorization: Basic x\r\nAccept: */*")
        #expect(head.destination == HostPort(host: "::1", port: 8080) && head.header("accept") == "*/*")
        #expect(
            head.forwarded(toProxy: false, proxyAuthorization: nil)
                == "GET /a?b HTTP/1.1\r\nHost: [::1]:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n")
        #expect(throws: ProxyHeadError.badRequestLine) { try ProxyRequestHead(parsing: "GET / HTTP/1.1\r\nBad Header") }
    }

    @Test func anAnswersHeadIsDecodedByNIOOrNotAtAll() {
        let head = HeadDecoding.response("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\nContent-Length: 2")
        #expect(head?.status == .tooManyRequests && head?.headers.first(name: "retry-after") == "30")
        #expect(HeadDecoding.response("not http") == nil)
        #expect(HeadDecoding.request("CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443")?.uri == "[::1]:443")
        #expect(HeadDecoding.request("GET / HTTP/1.1\r\nNo colon here") == nil)
    }

    @Test func aProxysOwnAnswerIsFramedAndCloses() {
        #expect(
            ProxyAnswer.closing(
                status: 502, reason: "Bad Gateway", headerLines: ["Content-Type: text/plain"], body: "no")
                == "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno"
        )
        #expect(HeadDecoding.response(ProxyAnswer.tunnelOpen)?.status == .ok)
    }

    @Test func aHeadEndsAtItsBlankLineWhereverTheBufferStarts() {
        var buffer = ByteBuffer(string: "xxGET / HTTP/1.1\r\n\r\nbody")
        buffer.moveReaderIndex(forwardBy: 2)
        #expect(ProxyHeadReader.endOfHead(buffer.readableBytesView) == 18)
        #expect(ProxyHeadReader.endOfHead(Array("GET / HTTP/1.1\r\n".utf8)) == nil)
    }
}
