import Foundation
import TapForwarding
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A request body is taken whole before anything of the request goes upstream, as nginx buffers
/// one: up to the limit (1 MiB) the backend gets the exact bytes, framed by their length; over it
/// the client gets 413 and the backend nothing, neither a cut body nor a connection. Chunked and
/// `Content-Length` uploads, just under, at and just over the limit, at once and in pieces.
@Suite(.timeLimit(.minutes(15))) struct UploadLimitTests {
    enum Framing: String, CaseIterable, Sendable { case length, chunked }

    static let limit = TapLimits().maxBodyBytes

    static func script(_ path: String) -> ScriptedBackend.Answer {
        let text = path == "/upload" ? "stored" : "ok"
        return ScriptedBackend.Answer(
            bytes: Data("HTTP/1.1 200 OK\r\nContent-Length: \(text.count)\r\n\r\n\(text)".utf8))
    }

    /// `size` bytes that are not all alike, so a cut or a shift shows.
    static func payload(_ size: Int) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) }) }

    /// The upload's head and its body in `pieces` sends (each a chunk, when chunked), the
    /// terminating chunk with the last.
    static func upload(_ body: Data, framing: Framing, pieces: Int) -> (head: Data, pieces: [Data]) {
        let framingHeader =
            framing == .length ? "Content-Length: \(body.count)" : "Transfer-Encoding: chunked"
        let head = Data(
            "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: application/octet-stream\r\n\(framingHeader)\r\nConnection: close\r\n\r\n"
                .utf8)
        let size = (body.count + pieces - 1) / pieces
        var sends: [Data] = stride(from: 0, to: body.count, by: max(1, size)).map { start in
            let part = body[start..<min(body.count, start + size)]
            guard framing == .chunked else { return Data(part) }
            return Data((String(part.count, radix: 16) + "\r\n").utf8) + part + Data("\r\n".utf8)
        }
        if framing == .chunked {
            if sends.isEmpty { sends = [Data()] }
            sends[sends.count - 1] += Data("0\r\n\r\n".utf8)
        }
        return (head, sends)
    }

    /// A GET through the tap, answered: by then the backend has accepted every connection the tap opened before it.
    static func control(_ tap: TapServer) throws {
        let answer = try RawHTTP.exchange(
            port: tap.port, "GET /control HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(answer.body == Data("ok".utf8))
    }

    /// Sends the upload, all but its last piece first: while its body is not whole the backend
    /// must have no connection for it (a control GET through the tap, answered, is all it has
    /// seen). Then the last piece, and the answer.
    static func send(
        _ body: Data, framing: Framing, pieces: Int, tap: TapServer, backend: ScriptedBackend
    ) throws -> RawHTTP.Message {
        let (head, sends) = upload(body, framing: framing, pieces: pieces)
        let fd = try RawHTTP.connected(port: tap.port)
        defer { close(fd) }
        let before = backend.accepted
        RawHTTP.send(fd, head)
        // Over the limit the tap answers and closes before the body's end: a send then fails,
        // and the client reads what came back, as a client does.
        var sent = true
        for piece in sends.dropLast() where sent { sent = RawHTTP.send(fd, piece) }
        if sent, body.count <= limit {
            try control(tap)
            #expect(
                backend.accepted == before + 1,
                "\(framing), \(body.count) bytes: upstream opened before the body was whole")
        }
        if sent, let last = sends.last { RawHTTP.send(fd, last) }
        return RawHTTP.readMessage(fd, expectBody: false)
    }

    static func expectWhole(_ body: Data, at backend: ScriptedBackend, _ answer: RawHTTP.Message, _ framing: Framing) {
        #expect(
            answer.statusLine == "HTTP/1.1 200 OK" && answer.body == Data("stored".utf8), "\(framing) \(body.count)")
        guard let index = backend.requests.lastIndex(where: { $0.hasPrefix("POST /upload ") }) else {
            Issue.record("\(framing), \(body.count) bytes: the backend got no upload")
            return
        }
        #expect(
            backend.bodies[index] == body,
            "\(framing), \(body.count) bytes: the backend got \(backend.bodies[index].count)")
        let head = (backend.requests[index].components(separatedBy: "\r\n\r\n").first ?? "").lowercased() + "\r\n"
        #expect(head.contains("content-length: \(body.count)\r\n"), "\(framing): the body goes framed by its length")
        #expect(!head.contains("transfer-encoding"))
    }

    static func expectRefused(_ answer: RawHTTP.Message, tap: TapServer, backend: ScriptedBackend, _ what: String)
        throws
    {
        #expect(answer.statusLine == "HTTP/1.1 413 Payload Too Large", "\(what): \(answer.statusLine)")
        #expect(
            String(decoding: answer.body, as: UTF8.self) == "tokendash tap: request body over \(limit) bytes\n",
            "\(what)")
        // Answered after the upload was refused: nothing of the upload reached the backend before it.
        let before = backend.requests.count
        try control(tap)
        #expect(backend.requests.count == before + 1)
        #expect(!backend.requests.contains { $0.hasPrefix("POST") }, "\(what): the backend got a cut upload")
    }

    @Test(arguments: Framing.allCases)
    func uploadsUpToTheLimitArriveWholeAndOverItNothingArrives(_ framing: Framing) async throws {
        let backend = try ScriptedBackend(script: Self.script)
        defer { backend.stop() }
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: nil)
        for size in [Self.limit - 1, Self.limit] {
            let body = Self.payload(size)
            let answer = try Self.send(body, framing: framing, pieces: 2, tap: tap, backend: backend)
            Self.expectWhole(body, at: backend, answer, framing)
        }
        // Just over: a Content-Length says so in the head; a chunked body shows it at its last byte.
        let overBackend = try ScriptedBackend(script: Self.script)
        defer { overBackend.stop() }
        let overTap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(overBackend.base), report: nil)
        let answer = try Self.send(
            Self.payload(Self.limit + 1), framing: framing, pieces: 2, tap: overTap, backend: overBackend)
        try Self.expectRefused(answer, tap: overTap, backend: overBackend, "\(framing), limit + 1 bytes")
        await tap.stop()
        await overTap.stop()
    }

    /// A slow upload, in many small pieces: held until whole, then sent on whole; one that runs
    /// over the limit piece by piece is refused, and nothing of it goes upstream.
    @Test(arguments: Framing.allCases)
    func aSlowUploadIsTakenWholeBeforeItGoesUpstream(_ framing: Framing) async throws {
        let backend = try ScriptedBackend(script: Self.script)
        defer { backend.stop() }
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: nil)
        let body = Self.payload(300_000)
        let answer = try Self.send(body, framing: framing, pieces: 150, tap: tap, backend: backend)
        Self.expectWhole(body, at: backend, answer, framing)

        let overBackend = try ScriptedBackend(script: Self.script)
        defer { overBackend.stop() }
        let overTap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(overBackend.base), report: nil)
        // A chunked body runs over in the pieces; a Content-Length one is refused at its head.
        let over = try Self.send(
            Self.payload(Self.limit + 64 * 1024), framing: framing, pieces: 68, tap: overTap, backend: overBackend)
        try Self.expectRefused(over, tap: overTap, backend: overBackend, "\(framing), sent slowly over the limit")
        await tap.stop()
        await overTap.stop()
    }
}
