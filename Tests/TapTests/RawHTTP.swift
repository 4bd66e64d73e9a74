import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// HTTP/1.1 by hand over blocking sockets: a client that sends exactly the bytes given and reads
/// exactly what came back, and the parsing both the client and `ScriptedBackend` need. The reads
/// give up after 600 s (SO_RCVTIMEO), the suite's patience: beside four CPU hogs an upload of
/// 1 MiB through the tap took over 20 s, so a shorter bound decided a test on the machine's load.
enum RawHTTP {
    struct Message {
        var text: String
        var path: String
        var statusLine: String
        /// Names as sent, values trimmed (the spaces around a value are not part of it).
        var headers: [(name: String, value: String)]
        var body: Data
        /// The peer closed the connection (a read returned 0), not a read timing out.
        var closed = false
    }

    /// Sends `request` to 127.0.0.1:`port`, reads the answer to its end (or until `until` holds
    /// for the body so far, for an answer that never ends) and closes.
    static func exchange(port: Int, _ request: String, body: Data = Data(), until: ((Data) -> Bool)? = nil) throws
        -> Message
    {
        let fd = try connected(port: port)
        defer { close(fd) }
        send(fd, Data(request.utf8) + body)
        return readMessage(fd, expectBody: false, until: until)
    }

    /// A blocking socket connected to 127.0.0.1:`port`, reads giving up after 600 s; the caller closes it.
    static func connected(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var timeout = timeval(tv_sec: 600, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    @discardableResult
    static func send(_ fd: Int32, _ bytes: Data) -> Bool { SocketWriter.send(fd, bytes) }

    /// A request (`expectBody`: read its Content-Length's body, then stop) or an answer (read to
    /// its framing's end, or to EOF).
    static func readMessage(_ fd: Int32, expectBody: Bool, until: ((Data) -> Bool)? = nil) -> Message {
        var raw = Data()
        var chunk = [UInt8](repeating: 0, count: 16384)
        var headEnd: Range<Data.Index>?
        var closed = false
        func more() -> Bool {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { closed = true }
            if n <= 0 { return false }
            raw.append(contentsOf: chunk[0..<n])
            return true
        }
        while headEnd == nil {
            headEnd = raw.range(of: Data("\r\n\r\n".utf8))
            if headEnd == nil, !more() { break }
        }
        let head = String(decoding: raw[..<(headEnd?.lowerBound ?? raw.endIndex)], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        let start = headEnd?.upperBound ?? raw.endIndex
        let chunked = header("transfer-encoding")?.lowercased() == "chunked"
        let length = header("content-length").flatMap(Int.init)
        var body = Data()
        while true {
            let sofar = Data(raw[start...])
            if chunked, let decoded = dechunk(sofar) {
                body = decoded
                break
            }
            if !chunked, let length, sofar.count >= length {
                body = sofar.prefix(length)
                break
            }
            if !chunked, length == nil, expectBody { break }
            if let until, until(chunked ? dechunkedSoFar(sofar) : sofar) {
                body = chunked ? dechunkedSoFar(sofar) : sofar
                break
            }
            if !more() {
                body = chunked ? dechunkedSoFar(sofar) : sofar
                break
            }
        }
        let first = lines.first ?? ""
        let path = first.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let text = head + "\r\n\r\n" + String(decoding: body, as: UTF8.self)
        return Message(text: text, path: path, statusLine: first, headers: headers, body: body, closed: closed)
    }

    /// Every byte `fd` gives until the peer closes it (or a read gives up).
    static func readToEnd(_ fd: Int32) -> Data {
        var raw = Data()
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return raw }
            raw.append(contentsOf: chunk[0..<n])
        }
    }

    /// The body of a complete chunked encoding; nil until its last chunk arrived.
    static func dechunk(_ data: Data) -> Data? {
        var out = Data()
        var index = data.startIndex
        while let lineEnd = data[index...].range(of: Data("\r\n".utf8)) {
            let sizeText =
                String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            let start = lineEnd.upperBound
            if size == 0 { return data[start...].range(of: Data("\r\n".utf8)) == nil ? nil : out }
            guard data.endIndex >= start + size + 2 else { return nil }
            out.append(data[start..<(start + size)])
            index = start + size + 2
        }
        return nil
    }

    /// The chunks complete so far.
    static func dechunkedSoFar(_ data: Data) -> Data {
        var out = Data()
        var index = data.startIndex
        while let lineEnd = data[index...].range(of: Data("\r\n".utf8)),
            let size = Int(String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0,
            data.endIndex >= lineEnd.upperBound + size
        {
            out.append(data[lineEnd.upperBound..<(lineEnd.upperBound + size)])
            index = min(data.endIndex, lineEnd.upperBound + size + 2)
        }
        return out
    }
}
