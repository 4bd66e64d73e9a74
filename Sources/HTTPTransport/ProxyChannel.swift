import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

/// A plain HTTP/1.1 connection to a proxy, for the request AsyncHTTPClient cannot make: an
/// absolute-form request (`GET http://host:port/path`, curl's way for http targets). The pipeline is AsyncHTTPClient's
/// own (`HTTP1Connection.start`): the same encoder, decoder and, for answers, the same
/// decompressor with the same limit, so a zip bomb fails here with the very error it fails
/// with on a direct request.
enum ProxyChannel {
    typealias Connection = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    /// Connects to `proxy`. `decompression` adds the response decompressor under that ratio.
    static func open(to proxy: ProxyServer, connectTimeout: TimeAmount, decompression: Int?) async throws -> Connection
    {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .connect(host: proxy.host, port: proxy.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(HTTPRequestEncoder())
                    try sync.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
                    if let decompression {
                        try sync.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(decompression)))
                    }
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }
}
