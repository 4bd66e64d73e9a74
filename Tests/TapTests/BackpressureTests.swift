import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

@testable import TapForwarding

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
        // Neither timeout is what this test is about: a reader starved beside CPU hogs for a minute
        // is still a reader. The two have tests of their own below.
        var limits = TapLimits()
        limits.clientTimeout = .minutes(10)
        limits.upstreamReadTimeout = .minutes(10)
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), limits: limits, report: nil)
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

    /// nginx's `send_timeout`, shortened: a client that takes nothing of a large answer is closed
    /// after the client timeout, the exchange is reported cut short for the client's sake, and the
    /// upstream connection held for it is closed, not held for ever. The upstream's own read
    /// timeout, shorter still, is held meanwhile: the upstream was not the slow one.
    @Test func aClientThatTakesNothingIsClosedAndItsUpstreamConnectionWithIt() async throws {
        let size = 8 << 20
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(size)\r\n\r\n"
        let bytes = Data(head.utf8) + Data(repeating: 0x61, count: size)
        let backend = try ScriptedBackend { _ in ScriptedBackend.Answer(bytes: bytes) }
        defer { backend.stop() }
        // Both shortened, the upstream's shorter: unheld, it would cut the answer first, for the
        // upstream's sake. Until the first pause (the few milliseconds 8 MiB takes to fill the
        // socket buffers) the upstream timeout counts, so it is 2 s, not less.
        var limits = TapLimits()
        limits.clientTimeout = .seconds(6)
        limits.upstreamReadTimeout = .seconds(2)
        let exchanges = Mutex<[TapExchange]>([])
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), limits: limits,
            report: { exchange in exchanges.withLock { $0.append(exchange) } })
        let fd = try RawHTTP.connected(port: tap.port)
        defer { close(fd) }
        RawHTTP.send(fd, Data("GET /large HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8))
        // The client reads nothing until the tap has given up on it.
        #expect(await eventually { !exchanges.withLock { $0.isEmpty } })
        let outcome = exchanges.withLock { $0.first?.outcome }
        #expect(outcome == .cutShort(reason: "the client took nothing of the answer for 6 s"))
        #expect(tap.forwarding.clientsStalled == 1)
        #expect(tap.forwarding.idleTimeoutsHeld > 0)
        // What reached the client is the answer's start, then the end of the connection.
        let got = await withCheckedContinuation { done in
            Thread { done.resume(returning: RawHTTP.readToEnd(fd)) }.start()
        }
        #expect(got.count > head.utf8.count && got.count < head.utf8.count + size)
        #expect(await eventually { tap.forwarding.upstreamOpen == 0 })
        await tap.stop()
    }
}

/// The upstream side's read timeout alone, on SwiftNIO's embedded channel with a stand-in for the
/// client connection: while reading is paused for the client, the timeout is held; resumed, it
/// counts again. (The loopback test above runs the same path through real sockets.)
@Suite(.timeLimit(.minutes(15))) struct UpstreamReadTimeoutTests {
    final class Owner: UpstreamAnswerOwner {
        var idle = 0
        var held = 0
        func answerHead(_ head: HTTPResponseHead) {}
        func answerBody(_ buffer: ByteBuffer) {}
        func answerEnd(_ trailers: HTTPHeaders?) {}
        func answerReadComplete() {}
        func upstreamClosed() {}
        func upstreamIdle() { idle += 1 }
        func upstreamIdleHeld() { held += 1 }
        func upstreamFailed(_ error: any Error) {}
    }

    @Test func aPausedUpstreamIsNotIdle() throws {
        // A timeout of zero is due the moment it is asked about: what decides is only the pause.
        let answers = UpstreamAnswerHandler(readTimeout: .zero)
        let channel = EmbeddedChannel(handler: answers)
        let owner = Owner()
        answers.owner = owner
        answers.paused = true
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(owner.idle == 0 && owner.held == 1)
        answers.paused = false
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(owner.idle == 1 && owner.held == 1)
        _ = try channel.finish()
    }
}
