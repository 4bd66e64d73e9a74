import Foundation
import JSONValues
import LoopbackProxy
import ProviderVocabulary
import TestSupport
import Testing

/// `tokendash tap --proxy`: the tap in front of a backend whose name only a real forward proxy on
/// loopback resolves, reaching it through that proxy with its login, as the backends' `--proxy`
/// does; the proxy's password shows nowhere.
@Suite(.serialized, .timeLimit(.minutes(15))) struct TapProxyEndToEndTests {
    static let hidden = "tap-upstream.proxy-only.test"
    static let credentials = ForwardProxy.Credentials(user: "fleet", password: "hunter2-tap-proxy")

    @Test func theTapReachesItsUpstreamThroughProxy() async throws {
        let backend = try await ProxyEndToEndTests.backend()
        let proxy = try await ForwardProxy.start(names: [Self.hidden: "127.0.0.1"], credentials: Self.credentials)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let upstream = "http://\(Self.hidden):\(ProxyEndToEndTests.port(backend))"
        let tap = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "tap", "--listen", "127.0.0.1:0", "--upstream", upstream, "--watch", "--proxy",
                proxy.url(credentials: Self.credentials), "--consumer-route", "/t/{tripId}",
            ], name: "tap")
        defer { Task { await tap.stop() } }
        let listening = try #require(
            try await tap.await(#"listening on http://(127\.0\.0\.1:\d+)"#), "tap: \(tap.output)")
        #expect(tap.output.contains("forwarding to \(upstream) via proxy http://‹hidden›@127.0.0.1:\(proxy.port)"))

        let request = TransportRequest(
            url: try #require(URL(string: "http://\(listening)/t/trip-proxied")), timeout: 600)
        let answer = try await sharedTransport.send(request)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let line = try #require(try await tap.await(#"(\{[^\n]*"event":"tapped"[^\n]*\})"#), "tap: \(tap.output)")
        let tapped = try JSONValue.decode(Data(line.utf8))
        #expect(tapped["id"] == .string("trip-proxied"))
        #expect(tapped["http_status"] == .int(200))
        // Plain http goes to the proxy in absolute form, with the proxy's login.
        #expect(
            proxy.seen.contains { $0.line == "GET \(upstream)/t/trip-proxied HTTP/1.1" && $0.authorization != nil },
            "\(proxy.seen)")
        #expect(!tap.output.contains("hunter2-tap-proxy"), "the proxy password never shows")
    }

    @Test(arguments: [
        (["--proxy", "socks5://127.0.0.1:1080"], "--proxy: only http:// proxies are supported, not socks5://"),
        (["--proxy", "http://u:secret@proxy:99999"], "--proxy: port out of range: \"http://‹hidden›@proxy:99999\""),
        (["--proxy", "http://p:1", "--no-proxy"], "give --proxy or --no-proxy, not both"),
    ])
    func aBadProxyIsOneLineAndExit64(_ arguments: [String], _ message: String) async throws {
        let result = try await BinaryRunner.run(
            ["tap", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--watch"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
    }
}
