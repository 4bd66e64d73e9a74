import Foundation
import NIOCore
import NIOPosix
import ProviderVocabulary
import ProxyKit
import Synchronization

/// A real forward proxy on 127.0.0.1 (SwiftNIO) for the proxy tests and the bench: it answers `CONNECT host:port`
/// by opening a TCP connection and relaying bytes both ways, as squid and tinyproxy do. It resolves
/// names from its own table only (`token-backend.proxy-only.test` -> 127.0.0.1), which no DNS
/// knows: a request that reaches such a backend went through this proxy.
///
/// It also forwards absolute-form requests (`GET http://host:port/path`), which tokendash sends
/// for http targets as curl does: the request line is rewritten to the path and the bytes relayed
/// both ways as for a tunnel (one request per connection: tokendash sends `Connection: close`).
/// `refusingConnect` makes it a proxy that forwards plain http and answers every CONNECT with
/// 403, as many do. Anything else gets 501.
public final class ForwardProxy: Sendable {
    public struct Credentials: Sendable {
        public let user: String
        public let password: String
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
        var header: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
    }

    /// A request head the proxy received: its first line, and its Proxy-Authorization if any.
    public struct Seen: Sendable, Equatable {
        public let line: String
        public let authorization: String?
    }

    public let port: Int
    /// `http://127.0.0.1:PORT`, or with credentials `http://user:password@127.0.0.1:PORT`.
    public func url(credentials: Credentials? = nil) -> String {
        "http://" + (credentials.map { "\($0.user):\($0.password)@" } ?? "") + "127.0.0.1:\(port)"
    }

    private let listener: any Channel
    private let accepting: Task<Void, Never>
    private let state: State

    /// What the connection tasks share with the test.
    private final class State: Sendable {
        // Request heads seen, in order; appended by connection tasks, read by the test.
        let seen = Mutex<[Seen]>([])
        // Every client and upstream channel still open, so stop() can end tunnels a pooled client keeps.
        let open = OpenChannels()
    }

    public var seen: [Seen] { state.seen.withLock { $0 } }

    /// - Parameters:
    ///   - names: the only names the proxy resolves (to an IP address); IP literals connect as they are.
    ///   - credentials: when set, a request without these as Basic Proxy-Authorization gets 407.
    ///   - refusingConnect: answer every CONNECT with 403 Forbidden.
    public static func start(
        names: [String: String], credentials: Credentials? = nil,
        refusingConnect: Bool = false
    ) async throws -> ForwardProxy {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = server.channel.localAddress?.port else { throw FleetAuthError.other("proxy has no port") }
        return ForwardProxy(
            server: server, port: port, names: names, credentials: credentials, refusingConnect: refusingConnect)
    }

    private init(
        server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, port: Int,
        names: [String: String], credentials: Credentials?, refusingConnect: Bool
    ) {
        self.port = port
        listener = server.channel
        let state = State()
        self.state = state
        accepting = Task {
            try? await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask {
                            try? await Self.serve(
                                connection, names: names, credentials: credentials,
                                refusingConnect: refusingConnect, state: state)
                        }
                    }
                }
            }
        }
    }

    /// Closes the listener and every connection, tunnels included.
    public func stop() async {
        try? await listener.close()
        await state.open.closeAll()
        await accepting.value
    }

    private static func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, names: [String: String], credentials: Credentials?,
        refusingConnect: Bool, state: State
    ) async throws {
        let client = connection.channel
        _ = state.open.admit(client)
        defer { state.open.release(client) }
        try await connection.executeThenClose { inbound, outbound in
            var incoming = inbound.makeAsyncIterator()
            guard case .head(let text, let buffer) = try await ProxyHeadReader.read(&incoming) else { return }
            func answer(_ status: Int, _ reason: String, _ headerLines: [String] = []) async throws {
                try await outbound.write(
                    ByteBuffer(string: ProxyAnswer.closing(status: status, reason: reason, headerLines: headerLines)))
            }
            let head: ProxyRequestHead
            do throws(ProxyHeadError) { head = try ProxyRequestHead(parsing: text) } catch {
                state.seen.withLock { $0.append(Seen(line: String(text.prefix { $0 != "\r" }), authorization: nil)) }
                let refused = error == .notPlainHTTP || error == .notAbsolute
                return try await refused ? answer(501, "Not Implemented") : answer(400, "Bad Request")
            }
            let authorization = head.header("proxy-authorization")
            state.seen.withLock {
                $0.append(Seen(line: "\(head.method) \(head.target) \(head.version)", authorization: authorization))
            }
            if let credentials, authorization != credentials.header {
                return try await answer(
                    407, "Proxy Authentication Required", ["Proxy-Authenticate: Basic realm=\"tokendash test proxy\""])
            }
            if head.isConnect, refusingConnect { return try await answer(403, "Forbidden") }
            guard
                let address = names[head.host.lowercased()]
                    ?? (head.host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? head.host : nil)
            else {
                return try await answer(502, "Bad Gateway")
            }
            let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
            do {
                upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: address, port: head.port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
            } catch {
                return try await answer(502, "Bad Gateway")
            }
            let server = upstream.channel
            _ = state.open.admit(server)
            defer { state.open.release(server) }
            if head.isConnect {
                try await outbound.write(ByteBuffer(string: ProxyAnswer.tunnelOpen))
            }
            try await upstream.executeThenClose { fromServer, toServer in
                // An absolute-form request goes on with its path as the request target.
                if !head.isConnect {
                    try await toServer.write(
                        ByteBuffer(string: head.forwarded(toProxy: false, proxyAuthorization: nil)))
                }
                if buffer.readableBytes > 0 { try await toServer.write(buffer) }
                await Relay.run(
                    client: &incoming, toClient: outbound, clientChannel: client,
                    server: fromServer.makeAsyncIterator(), toServer: toServer, serverChannel: server)
            }
        }
    }
}
