import Foundation
import TapForwarding
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A client slower than the upstream: the tap stops reading the upstream while the client's
/// connection can take no more, so a large answer is never held whole in memory.
@Suite(.timeLimit(.minutes(15))) struct BackpressureTests {
    @Test func aClientThatDoesNotReadPausesTheUpstreamAndTheTapHoldsLittle() async throws {
        let size = 8 << 20
        let body = Data(repeating: 0x61, count: size)
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(size)\r\n\r\n"
        let backend = try ScriptedBackend { _ in ScriptedBackend.Answer(bytes: Data(head.utf8) + body) }
        defer { backend.stop() }
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), report: nil)
        let fd = try RawHTTP.connected(port: tap.port)
        defer { close(fd) }
        RawHTTP.send(fd, Data("GET /large HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8))
        // The client reads nothing yet: the tap must stop reading the upstream.
        #expect(await eventually { tap.forwarding.pauses > 0 })
        // Then it reads the whole answer, on a thread of its own (its reads block).
        let answer = await withCheckedContinuation { done in
            Thread { done.resume(returning: RawHTTP.readMessage(fd, expectBody: false)) }.start()
        }
        #expect(answer.statusLine == "HTTP/1.1 200 OK")
        #expect(answer.body.count == size)
        // Without the pauses this is most of the 8 MiB. With them it is bounded by the code, not by
        // the scheduler's kindness: the upstream is read only while the client's connection is
        // writable, that is with at most its high-water mark (SwiftNIO's 64 KiB) queued, and once
        // each time it is readable, at most 64 KiB (`UpstreamPool`: one read a wake-up, where
        // SwiftNIO's default is four); the answer's head adds its few hundred bytes. Nothing here
        // waits on timing: a slow scheduler changes when the reads happen, not what one may queue.
        let bound = 64 * 1024 + 64 * 1024 + 1024
        #expect(
            tap.forwarding.peakBufferedBytes <= bound, "peak \(tap.forwarding.peakBufferedBytes) bytes, bound \(bound)")
        await tap.stop()
    }
}
