import FlyingFox

/// Makes FlyingFox close a connection without sending any response. FlyingFox turns a handler
/// error into HTTP 500, so throwing is not enough; but for a WebSocket response it asks this
/// handler for its frames before writing the status line, and closes the socket if that throws.
struct ConnectionDropper: WSHandler {
    struct Dropped: Error {}

    func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws -> AsyncStream<WSFrame> {
        throw Dropped()
    }

    /// The response that drops the connection it is sent on.
    static var response: HTTPResponse { HTTPResponse(webSocket: ConnectionDropper()) }
}
