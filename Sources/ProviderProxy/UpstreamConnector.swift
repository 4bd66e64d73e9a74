import FleetAuth
import Foundation
import HTTPTransport
import NIOCore
import NIOPosix

/// The proxy's way to a backend: direct, or through the proxy the user's environment names
/// (`https_proxy`, `http_proxy`, `no_proxy`, as tokendash's own transport honours them), with
/// the same rules: a `CONNECT` tunnel for https, the absolute form for plain http.
struct UpstreamConnector: Sendable {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    let settings: ProxySettings
    let connectTimeout: TimeAmount
    let idle: TimeAmount

    /// A way to `head`'s target that failed, in words for the log and the 502's body.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The user's proxy for `head`, nil to go direct.
    func proxy(for head: ProxyRequestHead) -> ProxyServer? {
        guard let url = URL(string: (head.isConnect ? "https://" : "http://") + head.authority) else { return nil }
        return settings.server(for: url)
    }

    /// A connection towards `head`'s backend: to it, or to the user's proxy for it (`through`).
    func open(for head: ProxyRequestHead) async throws(Failure) -> (connection: Connection, through: ProxyServer?) {
        let through = proxy(for: head)
        let (host, port) = through.map { ($0.host, $0.port) } ?? (head.host, head.port)
        do {
            let connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(connectTimeout)
                .connect(host: host, port: port) { [idle] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addIdleClose(idle)
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
            return (connection, through)
        } catch {
            throw Failure(
                description:
                    "cannot reach \(through.map { "your proxy \($0.display)" } ?? head.authority): \(Self.words(error))"
            )
        }
    }

    /// Asks the user's proxy for a tunnel to `head`'s target and reads its answer's head, so
    /// what follows on the connection is the tunnel's; anything but 2xx fails.
    static func askTunnel(
        _ proxy: ProxyServer, to head: ProxyRequestHead,
        inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws(Failure) {
        var request = "CONNECT \(head.authority) HTTP/1.1\r\nHost: \(head.authority)\r\n"
        if let credential = proxy.basicCredential { request += "Proxy-Authorization: \(credential)\r\n" }
        request += "\r\n"
        var answer = ResponseMeter()
        do {
            try await outbound.write(ByteBuffer(string: request))
            while answer.status == nil, answer.totalBytes <= ProxyRequestHead.limit,
                let chunk = try await inbound.next()
            {
                answer.feed(chunk.readableBytesView)
            }
        } catch {
            throw Failure(
                description: "your proxy \(proxy.display) ended the tunnel to \(head.authority): \(words(error))")
        }
        guard let status = answer.status, (200..<300).contains(status) else {
            throw Failure(
                description: "your proxy \(proxy.display) refused the tunnel to \(head.authority)"
                    + (answer.status.map { ": \($0)" } ?? ""))
        }
    }

    static func words(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
        if case .connectTimeout? = error as? ChannelError { return "no answer within the connect timeout" }
        return "\(error)"
    }
}
