import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NetworkAddresses
import ProxyKit

/// Why a proxy refused a `CONNECT` tunnel, in words. AsyncHTTPClient 1.37 fails a non-2xx answer
/// to its `CONNECT` with `HTTPClientError.invalidProxyResponse` and drops the status line
/// (`HTTP1ProxyConnectHandler.handleHTTPHeadReceived`), and it has no hook to see the answer.
/// So, only after such a failure, the same `CONNECT` is sent once more on a connection of our
/// own and its status line read: one extra request to the proxy per refused tunnel, none on
/// the way that works. Writing the tunnel ourselves for every request instead would mean
/// handing AsyncHTTPClient a ready channel, which it cannot take.
enum TunnelRefusal {
    /// The sentence for a `CONNECT` to `target` that `proxy` refused.
    static func explain(proxy: ProxyServer, target: URL, connectTimeout: TimeAmount) async -> String {
        let port = target.port ?? (target.scheme?.lowercased() == "https" ? 443 : 80)
        let tunnel = HostPort(host: target.host ?? "", port: port)
        let name = "proxy \(proxy.address)"
        guard let answer = try? await ask(proxy: proxy, tunnel: tunnel, connectTimeout: connectTimeout) else {
            return
                "\(name) refused to open a tunnel to \(tunnel) (its answer to CONNECT was not 2xx: the backend may be down, "
                + "or the proxy may allow CONNECT only to port 443)"
        }
        let code = Int(answer.status.code)
        if (200..<300).contains(code) {
            return
                "\(name) refused to open a tunnel to \(tunnel) (its answer to CONNECT was not 2xx; asked again, it answered "
                + "\(code) \(answer.status.reasonPhrase): the refusal did not last)"
        }
        let status = "\(code) \(answer.status.reasonPhrase)"
        return "\(name) refused CONNECT to \(tunnel) with \(status)"
            + (meaning(code, port: port, answer: answer).map { " (\($0))" } ?? "")
    }

    /// What a refusal usually means; nil when the status says it all.
    static func meaning(_ code: Int, port: Int, answer: HTTPResponseHead) -> String? {
        let squid = answer.headers.first(name: "Server")?.lowercased().contains("squid") == true
        switch code {
        case 403 where port != 443:
            return squid
                ? "squid's default allows CONNECT to port 443 only" : "many proxies allow CONNECT to port 443 only"
        case 403:
            return "the proxy's rules do not allow this destination"
        case 405, 501:
            return "the proxy does not open tunnels"
        case 502, 503, 504:
            return "the proxy could not reach the backend"
        default:
            return nil
        }
    }

    /// The proxy's answer to `CONNECT tunnel`, head only; the connection is closed after it.
    private static func ask(proxy: ProxyServer, tunnel: HostPort, connectTimeout: TimeAmount) async throws
        -> HTTPResponseHead?
    {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .connect(host: proxy.host, port: proxy.port).get()
        defer { channel.close(promise: nil) }
        let answer = try await channel.eventLoop.submit {
            try ConnectTunnel.add(
                to: channel.pipeline.syncOperations, target: tunnel, proxy: "proxy \(proxy.address)",
                credential: proxy.basicCredential, timeout: connectTimeout, on: channel.eventLoop)
        }.get()
        do {
            return try await answer.get()
        } catch let refused as ConnectTunnel.Refused {
            return refused.answer
        }
    }
}
