#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// FlyingFox writes a response's header and body in two `write`s and never sets TCP_NODELAY, so
/// Nagle's algorithm holds the body back until the client's delayed ACK: every request took
/// about 40 ms and the server topped out near 340 requests/s whatever it did (measured with wrk,
/// even on /healthz). Accepted sockets inherit TCP_NODELAY from the listening socket, and FlyingFox
/// does not hand that socket out, so it is found among this process's descriptors by its port.
enum NagleSwitch {
    /// Sets TCP_NODELAY on this process's listening TCP socket bound to `port`; returns whether one was found.
    @discardableResult
    static func disable(onListenerAt port: UInt16) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return false }
        var found = false
        for entry in entries {
            guard let fd = Int32(entry), fd > 2, isListener(fd, port: port) else { continue }
            var one: Int32 = 1
            if setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 { found = true }
        }
        return found
    }

    private static func isListener(_ fd: Int32, port: UInt16) -> Bool {
        var accepting: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &size) == 0, accepting == 1 else { return false }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return false }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) == port }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) == port }
            }
        default:
            return false
        }
    }
}
