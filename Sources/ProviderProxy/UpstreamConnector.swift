import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ProviderVocabulary
import ProxyKit

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
    /// For a tunnel through the user's proxy, the proxy has said 2xx to the `CONNECT` by then.
    func open(for head: ProxyRequestHead) async throws(Failure) -> (connection: Connection, through: ProxyServer?) {
        let through = proxy(for: head)
        let (host, port) = through.map { ($0.host, $0.port) } ?? (head.host, head.port)
        let tunnel = head.isConnect ? through : nil
        let connection: (Connection, EventLoopFuture<HTTPResponseHead>?)
        do {
            connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(connectTimeout)
                .connect(host: host, port: port) { [idle, connectTimeout] channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addIdleClose(idle)
                        let established = try tunnel.map { proxy in
                            try ConnectTunnel.add(
                                to: sync, target: head.destination, proxy: "your proxy \(proxy.display)",
                                credential: proxy.basicCredential, timeout: connectTimeout, on: channel.eventLoop)
                        }
                        return (try Connection(wrappingChannelSynchronously: channel), established)
                    }
                }
        } catch {
            let name = through.map { "your proxy \($0.display)" } ?? head.authority
            throw Failure(description: "cannot reach \(name): \(Self.words(error, host: host))")
        }
        if let established = connection.1 {
            do {
                _ = try await established.get()
            } catch {
                try? await connection.0.channel.close()
                throw Failure(
                    description: (error as? ConnectTunnel.Refused)?.description ?? Self.words(error, host: host))
            }
        }
        return (connection.0, through)
    }

    static func words(_ error: any Error, host: String) -> String {
        ConnectionFailure.words(error, host: host) ?? "\(error)"
    }
}
