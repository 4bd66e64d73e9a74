import Foundation
import HTTPTransport
import LoopbackProxy
import NIOSSL
import ProviderVocabulary
import ProxyKit
import TapForwarding
import TestSupport
import Testing

/// The tap's upstream connections under today's proxy rules, through a real forward proxy that
/// alone resolves the upstream's name: plain http in absolute form, https through a `CONNECT`
/// tunnel, `no_proxy` direct, and a refused tunnel a 502 naming the proxy's answer.
@Suite(.timeLimit(.minutes(15))) struct ProxyTests {
    static let hidden = "tokens.proxy-only.test"
    static let names = [hidden: "127.0.0.1"]

    static func tokenAnswer() -> (Data, ScriptedBackend.Answer) {
        let jwt = TestJWT.make(kind: .driver, id: "vehicle-1", lifetime: 3600)
        let body = Data(TestJWT.responseBody(jwt, expiresAtSeconds: Int(Date().timeIntervalSince1970) + 3600).utf8)
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        return (body, ScriptedBackend.Answer(bytes: Data(head.utf8) + body))
    }

    /// Asked with the async transport, not a blocking socket: the proxy runs on the cooperative
    /// pool, which two blocked test threads would starve on a 2-core machine.
    static func get(_ port: Int) async throws -> TransportResponse {
        let client = keptForTheRun(try HTTPClientTransport(reuseConnections: false, connectTimeout: patientTimeout))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/token/driver/vehicle-1"))
        do {
            let answer = try await client.send(TransportRequest(url: url, timeout: 600))
            await client.shutdown()
            return answer
        } catch {
            await client.shutdown()
            throw error
        }
    }

    static func settings(_ proxy: ForwardProxy, noProxy: String = "") throws -> ProxySettings {
        try ProxySettings.fromEnvironment(["http_proxy": proxy.url(), "https_proxy": proxy.url(), "no_proxy": noProxy])
    }

    @Test func plainHTTPGoesToTheProxyInAbsoluteForm() async throws {
        let (body, answer) = Self.tokenAnswer()
        let backend = try ScriptedBackend { _ in answer }
        defer { backend.stop() }
        let proxy = try await ForwardProxy.start(names: Self.names)
        let upstream = try Upstream("http://\(Self.hidden):\(backend.port)", proxies: try Self.settings(proxy))
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: upstream, report: nil)
        let got = try await Self.get(tap.port)
        #expect(got.status == 200)
        #expect(got.body == body)
        #expect(proxy.seen.map(\.line) == ["GET http://\(Self.hidden):\(backend.port)/token/driver/vehicle-1 HTTP/1.1"])
        // The backend got the path, as a direct request sends it.
        #expect(backend.requests.first?.hasPrefix("GET /token/driver/vehicle-1 HTTP/1.1") == true)
        await tap.stop()
        await proxy.stop()
    }

    @Test func httpsGoesThroughAConnectTunnelAndNoProxyGoesDirect() async throws {
        let pki = try TestPKI()
        let (certificate, key) = try pki.leaf(dnsNames: [Self.hidden])
        let (body, answer) = Self.tokenAnswer()
        let backend = try await TLSTestServer.start(certificate: certificate, key: key, body: body)
        let proxy = try await ForwardProxy.start(names: Self.names)
        let trust = HTTPClientTransport.Trust.certificates(pemFile: pki.caFile)
        let upstream = try Upstream(
            "https://\(Self.hidden):\(backend.port)", trust: trust, proxies: try Self.settings(proxy))
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: upstream, report: nil)
        let got = try await Self.get(tap.port)
        #expect(got.status == 200)
        #expect(got.body == body)
        #expect(proxy.seen.map(\.line) == ["CONNECT \(Self.hidden):\(backend.port) HTTP/1.1"])
        await tap.stop()

        // `no_proxy` naming the upstream: straight there, the proxy sees nothing more.
        let plain = try ScriptedBackend { _ in answer }
        defer { plain.stop() }
        let direct = try Upstream(plain.base, proxies: try Self.settings(proxy, noProxy: "127.0.0.1"))
        let directTap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: direct, report: nil)
        let straight = try await Self.get(directTap.port)
        #expect(straight.status == 200)
        #expect(proxy.seen.count == 1)
        await directTap.stop()
        await proxy.stop()
        await backend.stop()
    }

    @Test func aRefusedTunnelIsA502NamingTheProxysAnswer() async throws {
        let proxy = try await ForwardProxy.start(names: Self.names, refusingConnect: true)
        let upstream = try Upstream("https://\(Self.hidden):1", proxies: try Self.settings(proxy))
        let tap = try await TapServer.start(host: "127.0.0.1", port: 0, upstream: upstream, report: nil)
        let got = try await Self.get(tap.port)
        #expect(got.status == 502)
        let text = String(decoding: got.body, as: UTF8.self)
        #expect(text.contains("proxy 127.0.0.1:\(proxy.port) refused the tunnel to \(Self.hidden):1: HTTP/1.1 403"))
        await tap.stop()
        await proxy.stop()
    }
}
