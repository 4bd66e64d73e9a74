import NIOCore

/// Reads a request's head off a connection to a proxy, within a bound: what tokendash's loopback
/// proxy and the tests' `ForwardProxy` both take first from a client.
public enum ProxyHeadReader {
    public enum Outcome: Sendable {
        /// The head without its blank line, and the bytes that came after it (a body's start).
        case head(String, rest: ByteBuffer)
        /// Over `limit` bytes without the blank line.
        case tooLong
        /// The client went away first.
        case ended
    }

    public static func read(
        _ incoming: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        limit: Int = 16_384
    ) async throws -> Outcome {
        var buffer = ByteBuffer()
        while true {
            guard var chunk = try await incoming.next() else { return .ended }
            buffer.writeBuffer(&chunk)
            if let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8))?.lowerBound {
                guard let head = buffer.readString(length: end - buffer.readerIndex) else { return .ended }
                buffer.moveReaderIndex(forwardBy: 4)
                return .head(head, rest: buffer)
            }
            if buffer.readableBytes > limit { return .tooLong }
        }
    }
}
