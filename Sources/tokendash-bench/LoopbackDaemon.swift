import Foundation

/// What the bench's real daemons (nginx, squid) need to start on loopback: a free port, since
/// neither takes port 0, and a wait until one accepts.
enum LoopbackDaemon {
    struct NotListening: Error {}

    /// A port the kernel had free a moment ago.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard named else { throw MintBenchmark.BenchmarkError("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Up to `seconds` for `port` to accept, asked every 10 ms; throws when process `pid` exits
    /// first or the time runs out.
    static func waitUntilListening(_ port: Int, pid: pid_t, seconds: Double) throws {
        for _ in 0..<Int(seconds * 100) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return }
            if waitpid(pid, nil, WNOHANG) == pid { break }
            usleep(10_000)
        }
        throw NotListening()
    }
}
