import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NetworkAddresses
import ProxyKit

/// The listening side of `tokendash tap`: SwiftNIO's HTTP/1.1 server (TLS from `--cert`/`--key`
/// when given) whose every connection is a `TapConnectionHandler` toward `upstream`, through the
/// upstream connections its event loop's `UpstreamPool` shares. Each exchange
/// is handed to `report` once its answer is written; with no `report` it is a bare reverse proxy,
/// the bench's baseline.
public final class TapServer: Sendable {
    public let port: Int
    public let host: String
    private let channel: any Channel
    /// What slow clients cost in buffered answer bytes (reading pauses keep it bounded), and the
    /// upstream connections open and idle.
    public let forwarding: ForwardingGauge

    public enum StartError: Error, Sendable, CustomStringConvertible {
        case addressInUse(String)
        case cannotListen(String, String)
        case tls(String)
        public var description: String {
            switch self {
            case .addressInUse(let address): "--listen \(address): address already in use"
            case .cannotListen(let address, let reason): "--listen \(address): \(reason)"
            case .tls(let reason): "--cert/--key: \(reason)"
            }
        }
    }

    /// The server side's TLS from PEM files: the certificate chain and its private key.
    public static func tlsContext(certificate: String, key: String) throws(StartError) -> NIOSSLContext {
        // NIOSSL's own errors name no file (`failedToLoadCertificate`): each step says which file failed.
        for file in [certificate, key] where !FileManager.default.isReadableFile(atPath: file) {
            throw .tls("cannot read \(file)")
        }
        do {
            guard
                let chain = try? NIOSSLCertificate.fromPEMFile(certificate).map({
                    NIOSSLCertificateSource.certificate($0)
                }),
                !chain.isEmpty
            else { throw StartError.tls("no PEM certificate in \(certificate)") }
            guard let privateKey = try? NIOSSLPrivateKey(file: key, format: .pem) else {
                throw StartError.tls("no PEM private key in \(key)")
            }
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(privateKey))
            return try NIOSSLContext(configuration: configuration)
        } catch let error as StartError {
            throw error
        } catch {
            throw .tls("\(error)")
        }
    }

    public static func start(
        host: String, port: Int, upstream: Upstream, tls: NIOSSLContext? = nil, limits: TapLimits = TapLimits(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, gauge: ForwardingGauge = ForwardingGauge(),
        report: (@Sendable (TapExchange) -> Void)?
    ) async throws(StartError) -> TapServer {
        let address = HostPort(host: host, port: port).description
        let pools = UpstreamPools(upstream: upstream, limits: limits, gauge: gauge)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    try sync.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try sync.addHandler(IdleStateHandler(readTimeout: limits.clientTimeout))
                    try sync.addHandler(
                        TapConnectionHandler(
                            upstream: upstream, pool: pools.pool(on: channel.eventLoop), limits: limits, gauge: gauge,
                            report: report))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: host, port: port).get()
            return TapServer(channel: channel, host: host, port: channel.localAddress?.port ?? port, forwarding: gauge)
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw .addressInUse(address)
        } catch {
            throw .cannotListen(address, "\(error)")
        }
    }

    private init(channel: any Channel, host: String, port: Int, forwarding: ForwardingGauge) {
        self.forwarding = forwarding
        self.channel = channel
        self.host = host
        self.port = port
    }

    /// `http://host:port`, as a client reaches it.
    public var baseURL: String { "http://\(HostPort(host: host, port: port))" }

    /// Stops listening; connections in flight end as their clients close them.
    public func stop() async {
        try? await channel.close()
    }
}
