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
/// request it got (head and body) to compare what the tap sent on. One request per connection,
/// and every answer says so (`Connection: close` is added to a head without a `Connection`), as
/// HTTP/1.1 asks of a server that closes: the tap's pool then never takes back a connection this
/// backend is about to close. A script's `stall` holds the connection open after the bytes.
final class ScriptedBackend: Sendable {
    struct Answer: Sendable {
        var bytes: Data
        var stall = false
    }

    let port: UInt16
    private let listener: Int32
    // Requests received (head text and body), in arrival order; appended by connection threads.
    private let received = Mutex<[String]>([])
    // The bodies of those requests, byte for byte, in the same order.
    private let receivedBodies = Mutex<[Data]>([])
    // Connections accepted so far.
    private let acceptedCount = Mutex(0)
    // Connections held open (stalled answers), closed by stop().
    private let held = Mutex<[Int32]>([])

    var requests: [String] { received.withLock { $0 } }
    var bodies: [Data] { receivedBodies.withLock { $0 } }
    var accepted: Int { acceptedCount.withLock { $0 } }

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
                acceptedCount.withLock { $0 += 1 }
                Thread { [self] in
                    let request = RawHTTP.readMessage(connection, expectBody: true)
                    received.withLock { $0.append(request.text) }
                    receivedBodies.withLock { $0.append(request.body) }
                    let answer = script(request.path)
                    RawHTTP.send(connection, Self.closing(answer.bytes))
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

    /// `answer` with `Connection: close` after its status line, unless its head names a `Connection`.
    static func closing(_ answer: Data) -> Data {
        guard let lineEnd = answer.range(of: Data("\r\n".utf8)) else { return answer }
        let headEnd = answer.range(of: Data("\r\n\r\n".utf8))?.lowerBound ?? answer.endIndex
        let head = String(decoding: answer[..<headEnd], as: UTF8.self).lowercased()
        guard !head.contains("\r\nconnection:") else { return answer }
        return answer[..<lineEnd.upperBound] + Data("Connection: close\r\n".utf8) + answer[lineEnd.upperBound...]
    }

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
