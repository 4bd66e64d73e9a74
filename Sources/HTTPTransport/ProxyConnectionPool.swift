import NIOCore
import NIOHTTP1
import Synchronization

/// Kept-alive connections to a proxy for absolute-form requests, as curl keeps them: a connection
/// whose answer was read to its end, and which neither side asked to close, waits here for the
/// next request to the same proxy; a connection the proxy has closed meanwhile is dropped when
/// taken. One connection carries one exchange at a time.
final class ProxyConnectionPool: Sendable {
    /// The idle connections kept per proxy; more are closed as they come back.
    static let idlePerProxy = 8

    // Guards the idle connections by proxy.
    private let idle = Mutex<[ProxyServer: [KeptConnection]]>([:])

    /// An idle connection to `proxy` still open, or nil.
    func take(_ proxy: ProxyServer) -> KeptConnection? {
        while let connection = idle.withLock({ $0[proxy]?.popLast() }) {
            if connection.isOpen { return connection }
            connection.close()
        }
        return nil
    }

    func putBack(_ connection: KeptConnection) {
        let kept = idle.withLock { idle -> Bool in
            guard connection.isOpen, idle[connection.proxy, default: []].count < Self.idlePerProxy else { return false }
            idle[connection.proxy, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    func closeAll() {
        for connection in idle.withLock({ idle in
            defer { idle = [:] }
            return idle.values.flatMap { $0 }
        }) { connection.close() }
    }
}

/// One connection to a proxy, owned by a task of its own that runs the exchanges handed to it in
/// turn inside `executeThenClose`, so the channel is closed however its use ends.
final class KeptConnection: Sendable {
    typealias Inbound = NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    typealias Outbound = NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    /// One exchange: it writes its request, reads the answer, and says whether the connection may
    /// carry another.
    typealias Exchange = @Sendable (inout Inbound, Outbound) async -> Bool

    let proxy: ProxyServer
    private let channel: any Channel
    private let exchanges: AsyncStream<Exchange>.Continuation

    init(_ connection: ProxyChannel.Connection, proxy: ProxyServer) {
        self.proxy = proxy
        channel = connection.channel
        let (stream, exchanges) = AsyncStream<Exchange>.makeStream()
        self.exchanges = exchanges
        Task {
            try? await connection.executeThenClose { inbound, outbound in
                var answers = inbound.makeAsyncIterator()
                for await exchange in stream {
                    guard await exchange(&answers, outbound) else { break }
                }
            }
            exchanges.finish()
        }
    }

    var isOpen: Bool { channel.isActive }

    /// Hands `exchange` to the connection's task; false when the connection has ended.
    func run(_ exchange: @escaping Exchange) -> Bool {
        if case .enqueued = exchanges.yield(exchange) { return true }
        return false
    }

    func close() {
        exchanges.finish()
        channel.close(promise: nil)
    }
}
