import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A token backend on 127.0.0.1 that answers each request with the raw bytes its script gives for
/// the request's path, so the test knows byte for byte what a direct client sees; it keeps every
/// request it got (head and body) to compare what the tap sent on. One request per connection.
/// A script's `nil` holds the connection open after the bytes: a stalled answer.
final class ScriptedBackend: Sendable {
    struct Answer: Sendable {
        var bytes: Data
        var stall = false
    }

    let port: UInt16
    private let listener: Int32
    // Requests received (head text and body), in arrival order; appended by connection threads.
    private let received = Mutex<[String]>([])
    // Connections held open (stalled answers), closed by stop().
    private let held = Mutex<[Int32]>([])

    var requests: [String] { received.withLock { $0 } }

    init(script: @escaping @Sendable (_ path: String) -> Answer) throws {
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                // stop() only shuts the listener down, which ends this accept; the thread closes it,
                // so its number is never reused while this loop may still accept on it.
                if connection < 0 {
                    close(fd)
                    return
                }
                Thread { [self] in
                    let request = RawHTTP.readMessage(connection, expectBody: true)
                    received.withLock { $0.append(request.text) }
                    let answer = script(request.path)
                    RawHTTP.send(connection, answer.bytes)
                    if answer.stall {
                        held.withLock { $0.append(connection) }
                    } else {
                        close(connection)
                    }
                }.start()
            }
        }.start()
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        held.withLock { open in
            for c in open {
                shutdown(c, Int32(SHUT_RDWR))
                close(c)
            }
            open.removeAll()
        }
    }
}
