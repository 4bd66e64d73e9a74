import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP listener on 127.0.0.1 that hands each connection, after its request head, to a closure
/// writing raw bytes: for the misbehaviour an HTTP library will not produce (a reset mid-body,
/// a server that never answers, a body that never ends).
final class RawSocketServer: Sendable {
    let port: UInt16
    private let listener: Int32
    // The accepted connections still open, each with whether its handler left it held (true) or
    // still writes to it (false); guarded because the accept and handler threads change it.
    private let connections = Mutex<[Int32: Bool]>([:])
    private let stopped = Mutex(false)

    var base: String { "http://127.0.0.1:\(port)" }

    /// How a handler wants its connection to end. The server does it, so that it knows which
    /// descriptors are still its own: stop() must not shut down a number already reused elsewhere.
    enum Ending: Sendable {
        /// An orderly close (FIN).
        case close
        /// An RST instead of a FIN: what a crashing proxy or a killed server does.
        case reset
        /// Left open, silent, until stop(): a server that never answers.
        case hold
    }

    init(_ handler: @escaping @Sendable (_ connection: Int32) -> Ending) throws {
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                // stop() only shuts the listener down, which ends this accept; the thread closes it,
                // so its number is never reused while this loop may still accept on it.
                if connection < 0 {
                    close(fd)
                    return
                }
                if stopped.withLock({ $0 }) {
                    close(connection)
                    continue
                }
                connections.withLock { $0[connection] = false }
                Thread { [self] in
                    Self.readRequestHead(connection)
                    let ending = handler(connection)
                    // The handler's thread closes its own descriptor, after stop() too: stop()
                    // only shuts a connection in use down, so its number cannot be reused while
                    // this thread still writes to it or closes it (a double close once shut the
                    // next test's listening socket).
                    connections.withLock { open in
                        if ending == .hold, !stopped.withLock({ $0 }) {
                            open[connection] = true
                            return
                        }
                        if ending == .reset {
                            var linger = Foundation.linger(l_onoff: 1, l_linger: 0)
                            setsockopt(
                                connection, SOL_SOCKET, SO_LINGER, &linger,
                                socklen_t(MemoryLayout<Foundation.linger>.size))
                        }
                        open.removeValue(forKey: connection)
                        close(connection)
                    }
                }.start()
            }
        }
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        connections.withLock { open in
            for (c, held) in open {
                shutdown(c, Int32(SHUT_RDWR))
                // A held connection is the server's to close; one in use, its handler's.
                if held {
                    close(c)
                    open.removeValue(forKey: c)
                }
            }
        }
    }

    /// Writes all of `text`; false once the peer has gone.
    @discardableResult
    static func send(_ connection: Int32, _ bytes: Data) -> Bool { SocketWriter.send(connection, bytes) }

    private static func readRequestHead(_ connection: Int32) {
        var head = [UInt8]()
        var byte: UInt8 = 0
        while recv(connection, &byte, 1, 0) == 1 {
            head.append(byte)
            if head.suffix(4) == [13, 10, 13, 10] || head.count > 65536 { return }
        }
    }
}
