import NIOCore
import NIOHTTP1
import ProxyKit
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

/// One connection to a proxy, carrying one exchange at a time through its `ProxyExchangeHandler`.
final class KeptConnection: Sendable {
    let proxy: ProxyServer
    private let channel: any Channel

    init(_ channel: any Channel, proxy: ProxyServer) {
        self.proxy = proxy
        self.channel = channel
    }

    var isOpen: Bool { channel.isActive }

    /// Sends `head` and `body`; the answer, gathered up to `cap` decoded bytes, completes the future.
    func send(_ head: HTTPRequestHead, body: ByteBuffer?, cap: Int) -> EventLoopFuture<ProxyExchangeHandler.Answer> {
        let answer = channel.eventLoop.makePromise(of: ProxyExchangeHandler.Answer.self)
        let exchange = ProxyExchangeHandler.Exchange(head: head, body: body, cap: cap, answer: answer)
        // A channel already closed never reaches the handler: its write fails here instead.
        channel.writeAndFlush(exchange).whenFailure { answer.fail(ProxyExchangeHandler.Unanswered(underlying: $0)) }
        return answer.futureResult
    }

    func close() { channel.close(promise: nil) }
}
