import Foundation
import Synchronization

/// A lean HTTP/1.1 load generator: `connections` threads, each with one keep-alive TCP
/// connection and one request in flight, asking for tokens until told to stop. Blocking sockets
/// and a hand parser keep its own CPU small, so the server gets the cores; the server's CPU is
/// measured in its own process anyway.
final class KeepAliveLoad: Sendable {
    let connections: Int
    private let host: String
    private let port: UInt16
    /// Responses that were 200 with a token-sized body, and everything else, across connections.
    private let succeeded = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)
    /// TCP connections opened: stays at `connections` when keep-alive holds.
    private let opened = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// While set, connections stay open but send nothing, so the server idles.
    private let paused = Atomic<Bool>(false)
    private let finished = Atomic<Int>(0)
    /// Paced: each connection sends one request every `interval` ns (its schedule, not the
    /// answers, sets the rate); nil asks again as soon as an answer is in.
    private let interval: UInt64?
    /// While set, each answer's latency (ns, send to last byte) is kept.
    private let measuring = Atomic<Bool>(false)
    // Guards the latencies the connections hand in when they stop.
    private let samples = Mutex<[UInt64]>([])
    // Guards the answers that were not a 200 (status 0: no answer, the connection refused or
    // closed), with their moment (uptime ns): the soak checks each falls in a restart's window.
    private let unusual = Mutex<[(at: UInt64, status: Int)]>([])

    /// Every answer that was not a 200, in the order they came (status 0: no answer at all).
    var unusualAnswers: [(at: UInt64, status: Int)] { unusual.withLock { $0 } }

    /// `rate`: requests a second across all connections, paced; nil for as fast as answers come.
    init(baseURL: URL, connections: Int, rate: Double? = nil) throws {
        guard let host = baseURL.host, let port = baseURL.port else {
            throw MintBenchmark.BenchmarkError("no host and port in \(baseURL)")
        }
        self.host = host
        self.port = UInt16(port)
        self.connections = connections
        interval = rate.map { UInt64(1e9 * Double(connections) / $0) }
    }

    /// Keeps latencies from now on (after a warm-up), until `unmeasure`.
    func measure() { measuring.store(true, ordering: .relaxed) }
    func unmeasure() { measuring.store(false, ordering: .relaxed) }

    /// The latencies kept, in ns, once `stop` has returned.
    var latencies: [UInt64] { samples.withLock { $0 } }

    struct Counts {
        var succeeded: Int
        var failed: Int
        var connectionsOpened: Int
    }

    var counts: Counts {
        Counts(
            succeeded: succeeded.load(ordering: .relaxed), failed: failed.load(ordering: .relaxed),
            connectionsOpened: opened.load(ordering: .relaxed))
    }

    func start() {
        for client in 0..<connections {
            let thread = Thread { [self] in
                drive(client: client)
                finished.add(1, ordering: .releasing)
            }
            thread.start()
        }
    }

    /// Holds requests back (each connection finishes the one in flight) until `resume`.
    func pause() { paused.store(true, ordering: .relaxed) }
    func resume() { paused.store(false, ordering: .relaxed) }

    /// Asks every connection to stop after its current request, and waits until they have.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        while finished.load(ordering: .acquiring) < connections {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: - One connection

    private func drive(client: Int) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var fd: Int32 = -1
        var n = 0
        let kinds = ["consumer", "driver", "delivery_consumer", "delivery_driver"]
        var kept: [UInt64] = []
        // Spread the connections' schedules over one interval, so the requests do not come in bursts.
        let offset = (interval ?? 0) * UInt64(client) / UInt64(max(1, connections))
        var next = DispatchTime.now().uptimeNanoseconds + offset
        defer { samples.withLock { $0 += kept } }
        while !stopping.load(ordering: .relaxed) {
            if let interval {
                let now = DispatchTime.now().uptimeNanoseconds
                if next > now { usleep(UInt32((next - now) / 1000)) } else if now - next > 1_000_000_000 { next = now }
                next += interval
            }
            if paused.load(ordering: .relaxed) {
                // Seldom enough that idle polling costs this process nothing measurable while it signs.
                usleep(20_000)
                // The schedule starts again from the resume, this connection's share of an interval
                // in: the requests a pause skipped are not made up in a burst.
                next = DispatchTime.now().uptimeNanoseconds + offset
                continue
            }
            if fd < 0 {
                fd = connect()
                if fd < 0 {
                    failed.add(1, ordering: .relaxed)
                    noteUnusual(0)
                    usleep(10_000)
                    continue
                }
                opened.add(1, ordering: .relaxed)
            }
            n += 1
            let kind = kinds[n % kinds.count]
            let request =
                "GET /token/\(kind)/bench-\(client)-\(n) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: */*\r\n\r\n"
            let sent = DispatchTime.now().uptimeNanoseconds
            var status = 0
            if exchange(fd, request: request, buffer: &buffer, status: &status) {
                if measuring.load(ordering: .relaxed) { kept.append(DispatchTime.now().uptimeNanoseconds - sent) }
                succeeded.add(1, ordering: .relaxed)
            } else {
                failed.add(1, ordering: .relaxed)
                noteUnusual(status)
                Foundation.close(fd)
                fd = -1
            }
        }
        if fd >= 0 { Foundation.close(fd) }
    }

    private func noteUnusual(_ status: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        unusual.withLock { $0.append((now, status)) }
    }

    private func connect() -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        // A stalled server fails the request instead of hanging the run.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Foundation.close(fd)
            return -1
        }
        return fd
    }

    /// Sends one request and reads its whole response; true for a 200 carrying a token-sized body
    /// on a connection that stays open.
    private func exchange(_ fd: Int32, request: String, buffer: inout [UInt8], status: inout Int) -> Bool {
        var request = request
        // Darwin has no MSG_NOSIGNAL; there a closed server would raise SIGPIPE (SO_NOSIGPIPE not set yet).
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        let sent = request.withUTF8 { send(fd, $0.baseAddress, $0.count, flags) }
        guard sent == request.utf8.count else { return false }
        var filled = 0
        var headerEnd: Int?
        var expected = Int.max
        var keepAlive = true
        while filled < expected {
            if filled == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, $0.count - filled, 0) }
            // A read with a timeout is not restarted after a signal.
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            filled += got
            if headerEnd == nil, let end = Self.headerEnd(buffer, filled) {
                headerEnd = end
                let head = String(decoding: buffer[0..<end], as: UTF8.self).lowercased()
                status = head.count > 12 ? Int(head.dropFirst(9).prefix(3)) ?? 0 : 0
                guard let length = Self.contentLength(head) else { return false }
                keepAlive = !head.contains("\r\nconnection: close")
                expected = end + length
            }
        }
        guard let headerEnd else { return false }
        return status == 200 && expected - headerEnd > 100 && keepAlive
    }

    /// The index just past the blank line ending the header, if it has arrived.
    private static func headerEnd(_ buffer: [UInt8], _ count: Int) -> Int? {
        guard count >= 4 else { return nil }
        for i in 0...(count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    private static func contentLength(_ lowercasedHead: String) -> Int? {
        guard let range = lowercasedHead.range(of: "\r\ncontent-length:") else { return nil }
        let digits = lowercasedHead[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }
        return Int(digits)
    }
}
