import Foundation
import NIOCore
import ProviderEvents
import ProviderVocabulary
import ProxyKit
import Redaction
import Synchronization
import TokenReading

/// One connection from the host to the proxy: its request's head read within its bounds, the
/// fault acted out, the request sent on and the answer relayed, and the exchange published once.
struct ProxyExchange: Sendable {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let shared: ProviderProxy.Shared

    func serve(_ connection: Connection) async {
        let client = connection.channel
        guard shared.open.admit(client, limit: shared.limits.connections) else {
            try? await connection.channel.close()
            return
        }
        defer { shared.open.release(client) }
        let headTimer = client.eventLoop.scheduleTask(in: shared.limits.headTimeout) { client.close(promise: nil) }
        try? await connection.executeThenClose { inbound, outbound in
            var incoming = inbound.makeAsyncIterator()
            let text: String
            let rest: ByteBuffer
            switch try await ProxyHeadReader.read(&incoming, limit: ProxyRequestHead.limit) {
            case .ended: return
            case .tooLong: return try await refuse(ProxyHeadError.tooLong, outbound)
            case .head(let head, let after): (text, rest) = (head, after)
            }
            headTimer.cancel()
            let head: ProxyRequestHead
            do throws(ProxyHeadError) { head = try ProxyRequestHead(parsing: text) } catch {
                return try await refuse(error, outbound)
            }
            try await handle(head, rest: rest, incoming: &incoming, outbound: outbound, clientChannel: client)
        }
    }

    private func refuse(_ error: ProxyHeadError, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws {
        let body = "tokendash's proxy: \(error)\n"
        try await outbound.write(
            ByteBuffer(
                string: ProxyFaultAction.response(
                    status: error.status, reason: "Refused",
                    headerLines: ["Content-Type: text/plain"], body: body)))
    }

    private func handle(
        _ head: ProxyRequestHead, rest: ByteBuffer,
        incoming: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, clientChannel: any Channel
    ) async throws {
        let started = shared.clock.now()
        let setting = shared.faults.setting
        let action = ProxyFaultAction.decide(setting, tunnel: head.isConnect)
        let shown =
            head.isConnect ? SecretRedactor.redact(head.authority) : SecretRedactor.redact(URLRedactor.redact(head.url))
        var exchange = BackendExchange(
            way: head.isConnect ? .tunnel : .http, method: head.method, target: shown, latency: 0,
            bytesUp: 0, bytesDown: 0,
            fault: action == .forward(delayMilliseconds: 0) ? nil : setting?.fault.name)
        func publish() {
            exchange.latency = shared.clock.now().timeIntervalSince(started)
            shared.publish(exchange)
        }
        switch action {
        case .close:
            exchange.problem = "closed before any answer, by the drop fault"
            return publish()
        case .answer(let status, let reason, let headerLines, let body):
            exchange.status = status
            exchange.bytesDown = body.utf8.count
            publish()
            try await outbound.write(
                ByteBuffer(
                    string: ProxyFaultAction.response(
                        status: status, reason: reason, headerLines: headerLines, body: body)))
            return
        case .forward(let delay):
            // The fault's behaviour, not synchronisation: the request goes on late, on purpose.
            if delay > 0 { try await shared.clock.sleep(for: Double(delay) / 1000) }
        }
        let upstream: (connection: Connection, through: ProxyServer?)
        do {
            upstream = try await shared.upstream.open(for: head)
        } catch {
            exchange.status = 502
            exchange.problem = error.description
            let body = "tokendash's proxy: \(error.description)\n"
            exchange.bytesDown = body.utf8.count
            publish()
            try await outbound.write(
                ByteBuffer(
                    string: ProxyFaultAction.response(
                        status: 502, reason: "Bad Gateway",
                        headerLines: ["Content-Type: text/plain"], body: body)))
            return
        }
        let server = upstream.connection.channel
        _ = shared.open.admit(server)
        defer { shared.open.release(server) }
        let tally = Tally(up: rest.readableBytes)
        let report = Self.reporter(exchange, tally: tally, started: started, shared: shared)
        try await upstream.connection.executeThenClose { fromServer, toServer in
            if head.isConnect {
                try await outbound.write(ByteBuffer(string: ProxyAnswer.tunnelOpen))
            } else {
                let forwarded = head.forwarded(
                    toProxy: upstream.through != nil, proxyAuthorization: upstream.through?.basicCredential)
                try await toServer.write(ByteBuffer(string: forwarded))
            }
            if rest.readableBytes > 0 { try await toServer.write(rest) }
            // An http answer is read as it passes and published as soon as its body is whole
            // (before the host has its last byte), else when it ends. The backend's end ends the
            // host's connection too: one exchange each.
            let meter = head.isConnect ? nil : MeterBox()
            await Relay.run(
                client: &incoming, toClient: outbound, clientChannel: clientChannel,
                server: fromServer.makeAsyncIterator(), toServer: toServer, serverChannel: server,
                up: { tally.up.add($0.readableBytes, ordering: .relaxed) },
                down: { bytes in
                    tally.down.add(bytes.readableBytes, ordering: .relaxed)
                    if let meter, let whole = meter.feed(bytes) { report(whole) }
                },
                downEnded: { report(meter?.value) })
        }
    }

    /// The exchange published once, with what the relay counted and the meter read.
    private static func reporter(
        _ exchange: BackendExchange, tally: Tally, started: Date, shared: ProviderProxy.Shared
    ) -> @Sendable (ResponseMeter?) -> Void {
        { meter in
            guard tally.claimReport() else { return }
            var done = exchange
            done.bytesUp = tally.up.load(ordering: .relaxed)
            if let meter {
                done.status = meter.status
                done.bytesDown = meter.bodyBytes
                if meter.status == 200, let expiry = BackendExpiry.read(answer: Data(meter.bodyStart)) {
                    shared.lastExpiry.withLock { $0 = expiry }
                }
                if meter.status == nil { done.problem = "the backend closed the connection without an answer" }
            } else {
                done.bytesDown = tally.down.load(ordering: .relaxed)
            }
            done.latency = shared.clock.now().timeIntervalSince(started)
            shared.publish(done)
        }
    }
}

/// The answer's meter, fed from the relay's downward task and read when it ends.
final class MeterBox: Sendable {
    // Fed by the relay's downward task only; read by its end, on the same task.
    private let meter = Mutex(ResponseMeter())

    /// Feeds `bytes`; the meter once the body is whole by its `Content-Length`.
    func feed(_ bytes: ByteBuffer) -> ResponseMeter? {
        meter.withLock { meter in
            meter.feed(bytes.readableBytesView)
            return meter.isComplete ? meter : nil
        }
    }

    var value: ResponseMeter { meter.withLock { $0 } }
}

/// The bytes each way of one exchange, counted by its two directions, and whether it was published.
final class Tally: Sendable {
    let up: Atomic<Int>
    let down = Atomic<Int>(0)
    private let reported = Atomic<Bool>(false)

    init(up: Int) { self.up = Atomic(up) }

    /// True once: the caller publishes the exchange.
    func claimReport() -> Bool { !reported.exchange(true, ordering: .acquiringAndReleasing) }
}
