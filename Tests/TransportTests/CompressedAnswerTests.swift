import Foundation
import HTTPTransport
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenJudging

/// Backends that answer `Content-Encoding: gzip` or `deflate`, compressed by SwiftNIO's own
/// response compressor on loopback: read like any answer, and a zip bomb refused in words.
@Suite(.timeLimit(.minutes(15))) struct CompressedAnswerTests {
    static let json = Data(
        "{\"jwt\":\"eyJhbGciOiJSUzI1NiJ9.e30.c2ln\",\"expirationTimestamp\":1767225600000,\"padding\":\"\(String(repeating: "token ", count: 200))\"}"
            .utf8)

    static func get(_ server: CompressingServer) async throws -> TransportResponse {
        let request = TransportRequest(
            url: try #require(URL(string: server.base + "/token/consumer/trip-1")), timeout: patientTimeout)
        return try await patientTransport.send(request)
    }

    static func failure(_ server: CompressingServer) async throws -> String {
        do {
            _ = try await get(server)
            return "no error"
        } catch {
            return (error as? FleetAuthError)?.description ?? "not a FleetAuthError: \(error)"
        }
    }

    @Test(arguments: ["gzip", "deflate"])
    func aCompressedAnswerIsReadDecoded(encoding: String) async throws {
        let server = try await CompressingServer.start(body: Self.json, encoding: encoding)
        defer { Task { await server.stop() } }
        let response = try await Self.get(server)
        #expect(response.status == 200)
        #expect(response.header("Content-Encoding") == encoding, "the backend did compress")
        #expect(response.body == Self.json)
        #expect(server.acceptEncoding == "gzip, deflate", "we ask for both, as URLSession does")
    }

    @Test func aCompressedTokenAnswerDecodesAsJSON() async throws {
        let t = Int(Date().timeIntervalSince1970)
        let body = TestJWT.response(
            TestJWT.make(kind: .consumer, id: "trip-1", iat: t, exp: t + 600), expiresAtSeconds: t + 600
        ).body
        let server = try await CompressingServer.start(body: body, encoding: "gzip")
        defer { Task { await server.stop() } }
        let response = try await Self.get(server)
        let token = try TokenResponseDecoder(endpoint: .sampleBackend(.consumer, base: server.base)).decode(
            response, id: "trip-1", now: Date())
        #expect(token.id == "trip-1")
    }

    @Test func aSmallBombIsRefusedByTheRatio() async throws {
        // 400 kB of zeros gzip to about 400 bytes: past 100 times that before the 64 KiB cap.
        let server = try await CompressingServer.start(body: Data(count: 400_000), encoding: "gzip")
        defer { Task { await server.stop() } }
        let message = try await Self.failure(server)
        #expect(
            message
                == "backend's gzip answer expands more than \(HTTPClientTransport.maximumCompressionRatio)× its compressed size: refused as a possible zip bomb"
        )
    }

    @Test func anAnswerUnderTheRatioStillStopsAtTheCapOnTheDecodedBody() async throws {
        // 1 MB, a letter every 32 spaces: about 40 kB compressed (under the 64 KiB cap, about 25
        // times smaller, under the ratio), so only a cap on the decoded body refuses it.
        var seed: UInt32 = 12_345
        let body = Data(
            (0..<1_000_000).map { i -> UInt8 in
                guard i % 32 == 0 else { return 32 }
                seed = seed &* 1_103_515_245 &+ 12_345
                return 97 + UInt8((seed >> 16) % 26)
            })
        let server = try await CompressingServer.start(body: body, encoding: "gzip")
        defer { Task { await server.stop() } }
        let message = try await Self.failure(server)
        #expect(message == FleetAuthError.bodyTooLarge(limit: 64 * 1024).description)
    }
}

/// An HTTP server on 127.0.0.1 answering every request with `body`, compressed with `encoding` by
/// NIO's HTTPResponseCompressor, which picks the encoding from the request's Accept-Encoding:
/// a handler in front of it puts `encoding` there, after noting what the client asked for.
/// It runs on an event loop of its own: compressing a large body takes a debug build a while,
/// which must not hold up the shared loops every other test's client and servers run on.
final class CompressingServer: Sendable {
    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    let port: Int
    private let seen: LastValue
    var base: String { "http://127.0.0.1:\(port)" }
    /// The Accept-Encoding of the last request.
    var acceptEncoding: String? { seen.value.withLock { $0 } }

    /// Shared by the server's channels and the test.
    final class LastValue: Sendable {
        // Written on the event loop, read by the test.
        let value = Mutex<String?>(nil)
    }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, port: Int, seen: LastValue) {
        self.group = group
        self.channel = channel
        self.port = port
        self.seen = seen
    }

    static func start(body: Data, encoding: String) async throws -> CompressingServer {
        let seen = LastValue()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        ForcedEncoding(encoding: encoding) { value in seen.value.withLock { $0 = value } })
                    try channel.pipeline.syncOperations.addHandler(HTTPResponseCompressor())
                    try channel.pipeline.syncOperations.addHandler(FixedResponder(body: body))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw FleetAuthError.other("no port") }
        return CompressingServer(group: group, channel: channel, port: port, seen: seen)
    }

    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// Notes the request's Accept-Encoding and replaces it with the one encoding the test wants.
private final class ForcedEncoding: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    let encoding: String
    let note: @Sendable (String?) -> Void
    init(encoding: String, note: @escaping @Sendable (String?) -> Void) {
        self.encoding = encoding
        self.note = note
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        note(head.headers.first(name: "Accept-Encoding"))
        head.headers.replaceOrAdd(name: "Accept-Encoding", value: encoding)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
