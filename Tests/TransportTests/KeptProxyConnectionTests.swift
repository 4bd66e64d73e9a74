import Foundation
import ProviderVocabulary
import ProxyKit
import Synchronization
import TestSupport
import Testing

@testable import HTTPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Plain http through a proxy keeps its connection, as curl does: three fetches, one connection.
/// A proxy that closes each connection after its answer costs a new connection per fetch, and
/// never a failed fetch.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct KeptProxyConnectionTests {
    /// A proxy on loopback that answers every absolute-form request itself, over raw sockets:
    /// it counts the connections it accepted and the request lines it read.
    final class AnsweringProxy: Sendable {
        var port: Int { listener.port }
        private let listener: LoopbackSocket
        private let closesEach: Bool
        // Guards the connections accepted and the request lines read.
        private let seen = Seen()

        /// What the proxy's threads saw.
        final class Seen: Sendable {
            // Guards the connections accepted and the request lines read.
            let state = Mutex<(accepted: Int, lines: [String])>((0, []))
            func withLock<T: Sendable>(_ body: (inout sending (accepted: Int, lines: [String])) -> sending T) -> T {
                state.withLock(body)
            }
        }

        init(closesAfterEachAnswer: Bool) throws {
            closesEach = closesAfterEachAnswer
            listener = try LoopbackSocket(listening: 16)
            let socketFD = listener.descriptor
            let seen = seen
            let closesEach = closesEach
            Thread {
                while true {
                    let client = accept(socketFD, nil, nil)
                    guard client >= 0 else { return }
                    seen.withLock { $0.accepted += 1 }
                    Thread { Self.serve(client, seen: seen, closesEach: closesEach) }.start()
                }
            }.start()
        }

        var accepted: Int { seen.withLock { $0.accepted } }
        var lines: [String] { seen.withLock { $0.lines } }

        private static func serve(_ client: Int32, seen: Seen, closesEach: Bool) {
            defer { close(client) }
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { return }
                pending += buffer[0..<count]
                while let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                    pending.removeSubrange(..<end.upperBound)
                    seen.withLock { $0.lines.append(head.components(separatedBy: "\r\n").first ?? "") }
                    let body = #"{"jwt":"x","expirationTimestamp":1}"#
                    let answer =
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    _ = answer.withCString { write(client, $0, strlen($0)) }
                    if closesEach { return }
                }
            }
        }

        func stop() { listener.close() }
    }

    static func fetches(_ count: Int, through proxy: AnsweringProxy) async throws -> [Int] {
        let settings = try ProxySettings.fromEnvironment(["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        return try await withTransport(.system, proxy: settings) { transport in
            var statuses: [Int] = []
            for index in 1...count {
                let request = TransportRequest(
                    url: try #require(URL(string: "http://backend.invalid:8080/token/consumer/trip-\(index)")),
                    timeout: patientTimeout)
                statuses.append(try await transport.send(request).status)
            }
            return statuses
        }
    }

    @Test func threeFetchesShareOneConnection() async throws {
        let proxy = try AnsweringProxy(closesAfterEachAnswer: false)
        defer { proxy.stop() }
        #expect(try await Self.fetches(3, through: proxy) == [200, 200, 200])
        #expect(proxy.accepted == 1)
        #expect(
            proxy.lines == (1...3).map { "GET http://backend.invalid:8080/token/consumer/trip-\($0) HTTP/1.1" })
    }

    @Test func aProxyThatClosesEachConnectionCostsAConnectionNotAFetch() async throws {
        let proxy = try AnsweringProxy(closesAfterEachAnswer: true)
        defer { proxy.stop() }
        #expect(try await Self.fetches(3, through: proxy) == [200, 200, 200])
        #expect(proxy.accepted == 3)
    }
}
