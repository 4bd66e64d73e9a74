#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket bound to 127.0.0.1 at a port the system picks: the one way the tests bind a raw
/// loopback socket (a listener of their own, or a port free a moment ago for a program to take).
public struct LoopbackSocket: Sendable {
    public let descriptor: Int32
    public let port: Int

    public struct Refused: Error {}

    /// Bound, and listening when `backlog` is given.
    public init(listening backlog: Int32? = nil) throws {
        let descriptor = socket(AF_INET, SocketConstants.stream, 0)
        guard descriptor >= 0 else { throw Refused() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
            Self.release(descriptor)
            throw Refused()
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// A loopback port free a moment ago (bound and released), for a program that needs it given.
    public static func freePort() throws -> Int {
        let socket = try LoopbackSocket()
        release(socket.descriptor)
        return socket.port
    }

    /// Stops accepting: a thread blocked in `accept` returns.
    public func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Self.release(descriptor)
    }

    private static func release(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}

/// A loopback port where nothing listens, held for as long as the value lives: a socket bound to
/// it and never listening, so a connection is refused and no other test's server can be given the
/// port meanwhile (a stopped server's port was, and its requests reached another test's server).
public final class ClosedPort: Sendable {
    private let socket: LoopbackSocket
    public var port: Int { socket.port }

    public init() throws { socket = try LoopbackSocket() }

    deinit { socket.close() }
}
