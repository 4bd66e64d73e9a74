import FlyingFox
import FlyingSocks
import Foundation

/// FlyingFox's socket pool with Nagle's algorithm turned off on every socket it sees.
/// FlyingFox writes a response's header and body separately; with Nagle on, the body waits
/// for the client's delayed ACK of the header, about 40 ms per request on Linux loopback.
/// FlyingFox has no socket-option hook, but every socket (the listening one first, whose
/// option accepted sockets inherit on Linux) passes through the pool when it would block.
public struct NoDelaySocketPool: AsyncSocketPool {
    private let base: any AsyncSocketPool

    public init(base: any AsyncSocketPool = HTTPServer.defaultPool()) { self.base = base }

    public func prepare() async throws { try await base.prepare() }

    public func run() async throws { try await base.run() }

    public func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        var on: Int32 = 1
        // Fails harmlessly on non-TCP sockets; the option is a latency fix, not a requirement.
        _ = setsockopt(socket.file.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        try await base.suspendSocket(socket, untilReadyFor: events)
    }
}
