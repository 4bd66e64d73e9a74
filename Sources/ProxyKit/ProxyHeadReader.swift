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
            if let end = endOfHead(buffer.readableBytesView) {
                guard let head = buffer.readString(length: end - blankLine.count) else { return .ended }
                buffer.moveReaderIndex(forwardBy: blankLine.count)
                return .head(head, rest: buffer)
            }
            if buffer.readableBytes > limit { return .tooLong }
        }
    }

    /// How far into `bytes` the blank line that ends a head ends; nil while it has not come. Only
    /// the framing: what the head says is NIOHTTP1's to read (`HeadDecoding`).
    public static func endOfHead(_ bytes: some Collection<UInt8>) -> Int? {
        bytes.firstRange(of: blankLine).map { bytes.distance(from: bytes.startIndex, to: $0.upperBound) }
    }

    private static let blankLine = Array("\r\n\r\n".utf8)
}
