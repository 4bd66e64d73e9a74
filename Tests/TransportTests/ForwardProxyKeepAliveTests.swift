import FlyingFox
import Foundation
import HTTPTransport
import LoopbackProxy
import ProviderVocabulary
import ProxyKit
import TestSupport
import Testing

/// Plain http through the loopback forward proxy with kept connections, as `watch` sends it: one
/// fetch after another on the connection the first left in the pool.
@Suite(.serialized, .timeLimit(.minutes(15))) struct ForwardProxyKeepAliveTests {
    @Test func fetchesOneAfterAnotherThroughTheForwardProxyAllAnswer() async throws {
        let backend = try await LoopbackServer.start { request in
            HTTPResponse(statusCode: .ok, body: Data("{\"path\":\"\(request.path)\"}".utf8))
        }
        let hidden = "token-backend.proxy-only.test"
        let proxy = try await ForwardProxy.start(names: [hidden: "127.0.0.1"])
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let port = URL(string: backend.base)?.port ?? 0
        let settings = try ProxySettings.fromEnvironment(["http_proxy": proxy.url()])
        let bodies = try await withTransport(.system, proxy: settings) { transport in
            var bodies: [String] = []
            for index in 1...5 {
                let url = try #require(URL(string: "http://\(hidden):\(port)/t/trip-\(index)"))
                let answer = try await transport.send(TransportRequest(url: url, timeout: patientTimeout))
                bodies.append("\(answer.status) " + String(decoding: answer.body, as: UTF8.self))
            }
            return bodies
        }
        #expect(bodies == (1...5).map { "200 {\"path\":\"/t/trip-\($0)\"}" })
    }
}
