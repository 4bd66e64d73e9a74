import NIOCore

/// The bytes of one proxied connection both ways, as they come, between two async channels. The
/// backpressure is the channels' own: a write waits while the other side is not writable, and an
/// inbound stream that is not read stops reading its socket (autoRead off), so a slow side slows
/// the fast one through TCP instead of filling memory.
public enum Relay {
    public typealias Inbound = NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    public typealias Outbound = NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Relays until either side ends; the side that ends closes the other, which ends the other
    /// direction. The server's bytes go in a child task, each shown to `down` before it is
    /// written, and `downEnded` is told once they end; the client's go here, each shown to `up`.
    public static func run(
        client: inout Inbound, toClient: Outbound, clientChannel: any Channel,
        server: sending Inbound, toServer: Outbound, serverChannel: any Channel,
        up: (ByteBuffer) -> Void = { _ in }, down: @escaping @Sendable (ByteBuffer) -> Void = { _ in },
        downEnded: @escaping @Sendable () -> Void = {}
    ) async {
        async let downward: Void = pump(server, to: toClient, closing: clientChannel, down: down, ended: downEnded)
        do {
            while let bytes = try await client.next() {
                up(bytes)
                try await toServer.write(bytes)
            }
        } catch {}
        try? await serverChannel.close()
        await downward
    }

    private static func pump(
        _ iterator: sending Inbound, to writer: Outbound, closing channel: any Channel,
        down: @Sendable (ByteBuffer) -> Void, ended: @Sendable () -> Void
    ) async {
        var iterator = iterator
        do {
            while let bytes = try await iterator.next() {
                down(bytes)
                try await writer.write(bytes)
            }
        } catch {}
        ended()
        try? await channel.close()
    }
}
