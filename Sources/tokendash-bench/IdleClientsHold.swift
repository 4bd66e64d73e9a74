import Foundation

/// The tap section's idle-clients row: what a proxy holds to its upstream once `clients`
/// keep-alive clients have each asked once, all at once, and then stay connected, idle (apps
/// between token fetches). The connections are counted from /proc: the proxy's sockets whose
/// peer is the upstream's port. nginx (`keepalive 16`, one worker) keeps at most 16; the tap
/// at most `--upstream-keepalive` (16) per event loop.
enum IdleClientsHold {
    static let clients = 3000

    /// Opens `clients` connections to `url`, sends each one request, then reads every answer;
    /// the connections stay open, idle, until `close` is called on what this returns.
    static func openIdle(_ url: URL) throws -> (sockets: [Int32], answered: Int) {
        guard let port = url.port else { throw MintBenchmark.BenchmarkError("no port in \(url)") }
        var sockets: [Int32] = []
        for client in 0..<clients {
            let fd = try connect(port: port)
            sockets.append(fd)
            let request = "GET /token/consumer/idle-\(client) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
        var answered = 0
        for fd in sockets where readAnswer(fd) { answered += 1 }
        return (sockets, answered)
    }

    static func close(_ sockets: [Int32]) { for fd in sockets { Foundation.close(fd) } }

    /// The established TCP connections of process `pid` to 127.0.0.1:`upstreamPort`.
    static func upstreamConnections(of pid: pid_t, upstreamPort: Int) -> Int {
        let folder = "/proc/\(pid)/fd"
        var inodes = Set<String>()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)"),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst(8).dropLast()))
        }
        // Read to its end: a /proc file says its size is 0, and String(contentsOfFile:) was seen to
        // stop after the first lines of a table of thousands.
        let table =
            FileHandle(forReadingAtPath: "/proc/\(pid)/net/tcp").map {
                String(decoding: $0.readDataToEndOfFile(), as: UTF8.self)
            } ?? ""
        let peer = String(format: ":%04X", upstreamPort)
        // Fields: sl, local, remote, state (01 established), queues, timers, retransmits, uid, timeout, inode.
        return table.split(separator: "\n").dropFirst().count { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 9 && fields[2].hasSuffix(peer) && fields[3] == "01"
                && inodes.contains(String(fields[9]))
        }
    }

    private static func connect(port: Int) throws -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw MintBenchmark.BenchmarkError("no socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Foundation.close(fd)
            throw MintBenchmark.BenchmarkError("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    /// Reads one answer framed by its Content-Length; true for a 200.
    private static func readAnswer(_ fd: Int32) -> Bool {
        var raw = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = raw.indices.dropLast(3).first(where: { raw[$0..<($0 + 4)].elementsEqual(separator) }) {
                let head = String(decoding: raw[..<end], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                if raw.count >= end + 4 + length { return head.hasPrefix("http/1.1 200") }
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return false }
            raw.append(contentsOf: chunk[0..<n])
        }
    }
}
