import FlyingFox
import Foundation
import HTTPTransport
import LoopbackProxy
import ProviderVocabulary
import ProxyKit
import TestSupport
import Testing

/// The real transport through a real forward proxy on loopback. The backend's name is known to the
/// proxy alone, so a request that reaches it went through the proxy.
@Suite(.timeLimit(.minutes(15))) struct ProxyTransportTests {
    static let hidden = "token-backend.proxy-only.test"
    static let names = [hidden: "127.0.0.1"]
    static let body = Data("{\"jwt\":\"through the proxy\"}".utf8)
    static let credentials = ForwardProxy.Credentials(user: "fleet", password: "hunter2-proxy")

    static func backend() async throws -> LoopbackServer {
        try await LoopbackServer.start { _ in HTTPResponse(statusCode: .ok, body: body) }
    }

    static func port(_ server: LoopbackServer) -> Int { URL(string: server.base)?.port ?? 0 }

    static func settings(_ proxyURL: String, noProxy: String = "") throws -> ProxySettings {
        try ProxySettings.fromEnvironment(["http_proxy": proxyURL, "https_proxy": proxyURL, "no_proxy": noProxy])
    }

    /// The same settings with http tunnelled too (`--proxy-tunnel`).
    static func tunnelling(_ settings: ProxySettings) -> ProxySettings {
        var settings = settings
        settings.tunnelsHTTP = true
        return settings
    }

    static func get(_ url: String, trust: HTTPClientTransport.Trust = .system, proxy: ProxySettings) async throws
        -> TransportResponse
    {
        let request = TransportRequest(url: try #require(URL(string: url)), timeout: patientTimeout)
        return try await withTransport(trust, proxy: proxy) { try await $0.send(request) }
    }

    /// The failure's sentence, or "no error".
    static func failure(_ url: String, trust: HTTPClientTransport.Trust = .system, proxy: ProxySettings) async throws
        -> String
    {
        do {
            _ = try await get(url, trust: trust, proxy: proxy)
            return "no error"
        } catch {
            return (error as? FleetAuthError)?.description ?? "not a FleetAuthError: \(error)"
        }
    }

    @Test func anHTTPBackendOnlyTheProxyCanResolveIsReachedThroughIt() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: Self.names)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let url = "http://\(Self.hidden):\(Self.port(backend))/token/consumer/trip-1"
        let direct = try await Self.failure(url, proxy: .direct)
        #expect(direct.contains("DNS: no such host"), "without the proxy the name does not resolve: \(direct)")
        let response = try await Self.get(url, proxy: try Self.settings(proxy.url()))
        #expect(response.status == 200)
        #expect(response.body == Self.body)
        // As curl sends plain http through a proxy: the request itself, in absolute form.
        #expect(proxy.seen.map(\.line) == ["GET \(url) HTTP/1.1"])
    }

    @Test func proxyTunnelSendsHTTPThroughCONNECTAsCurlsProxytunnel() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: Self.names)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let url = "http://\(Self.hidden):\(Self.port(backend))/token/consumer/trip-1"
        let response = try await Self.get(url, proxy: Self.tunnelling(try Self.settings(proxy.url())))
        #expect(response.body == Self.body)
        #expect(proxy.seen.map(\.line) == ["CONNECT \(Self.hidden):\(Self.port(backend)) HTTP/1.1"])
    }

    /// A proxy that forwards plain http and refuses every CONNECT, as many do: each http request
    /// reaches the backend; with `--proxy-tunnel` the refusal names the proxy's status.
    @Test func aProxyRefusingCONNECTForwardsEveryHTTPRequest() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: Self.names, refusingConnect: true)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let settings = try Self.settings(proxy.url())
        for n in 1...5 {
            let response = try await Self.get(
                "http://\(Self.hidden):\(Self.port(backend))/token/consumer/trip-\(n)", proxy: settings)
            #expect(response.body == Self.body)
        }
        #expect(proxy.seen.count == 5)
        #expect(proxy.seen.allSatisfy { $0.line.hasPrefix("GET http://\(Self.hidden):") }, "\(proxy.seen)")
        let url = "http://\(Self.hidden):\(Self.port(backend))/t"
        let refused = try await Self.failure(url, proxy: Self.tunnelling(settings))
        #expect(
            refused
                == "backend unreachable at \(url): proxy 127.0.0.1:\(proxy.port) refused CONNECT to \(Self.hidden):\(Self.port(backend)) "
                + "with 403 Forbidden (many proxies allow CONNECT to port 443 only)")
    }

    @Test func anHTTPSBackendIsReachedThroughACONNECTTunnelWithItsCertificateChecked() async throws {
        let pki = try TestPKI(name: "Proxy Test CA")
        let (certificate, key) = try pki.leaf(dnsNames: [Self.hidden], ips: [])
        let backend = try await TLSTestServer.start(certificate: certificate, key: key, body: Self.body)
        let proxy = try await ForwardProxy.start(names: Self.names)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let url = "https://\(Self.hidden):\(backend.port)/token"
        let response = try await Self.get(
            url, trust: .certificates(pemFile: pki.caFile), proxy: try Self.settings(proxy.url()))
        #expect(response.body == Self.body)
        #expect(proxy.seen.map(\.line) == ["CONNECT \(Self.hidden):\(backend.port) HTTP/1.1"])
        // The tunnel carries TLS end to end: the system's roots do not know the test CA.
        let untrusted = try await Self.failure(url, proxy: try Self.settings(proxy.url()))
        #expect(untrusted.contains("TLS handshake through the proxy failed"), "\(untrusted)")
    }

    @Test func noProxyHostsGoDirectAndTheRestThroughTheProxy() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: Self.names)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let settings = try Self.settings(proxy.url(), noProxy: "localhost, 127.0.0.0/8")
        let direct = try await Self.get("\(backend.base)/direct", proxy: settings)
        #expect(direct.body == Self.body)
        #expect(proxy.seen.isEmpty, "127.0.0.1 is in no_proxy: \(proxy.seen)")
        _ = try await Self.get("http://\(Self.hidden):\(Self.port(backend))/proxied", proxy: settings)
        #expect(proxy.seen.count == 1)
    }

    @Test func aRedirectIsRoutedByItsOwnTarget() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: Self.names)
        // On 127.0.0.1 (no_proxy): sends the client on to the name only the proxy resolves.
        let redirector = try await LoopbackServer.start { _ in
            HTTPResponse(statusCode: .found, headers: [.location: "http://\(Self.hidden):\(Self.port(backend))/final"])
        }
        defer {
            Task {
                await backend.stop()
                await redirector.stop()
                await proxy.stop()
            }
        }
        let response = try await Self.get(
            "\(redirector.base)/start", proxy: try Self.settings(proxy.url(), noProxy: "127.0.0.1"))
        #expect(response.body == Self.body)
        #expect(
            proxy.seen.map(\.line) == ["GET http://\(Self.hidden):\(Self.port(backend))/final HTTP/1.1"],
            "only the second hop is proxied")
    }

    @Test func credentialsInTheProxyURLAreSentAsBasicProxyAuthorization() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: Self.names, credentials: Self.credentials)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let url = "http://\(Self.hidden):\(Self.port(backend))/t"
        let response = try await Self.get(url, proxy: try Self.settings(proxy.url(credentials: Self.credentials)))
        #expect(response.body == Self.body)
        #expect(proxy.seen.last?.authorization == "Basic " + Data("fleet:hunter2-proxy".utf8).base64EncodedString())
    }

    @Test func a407IsNamedAndNeverQuotesThePassword() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: Self.names, credentials: Self.credentials)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let url = "http://\(Self.hidden):\(Self.port(backend))/t"
        let none = try await Self.failure(url, proxy: try Self.settings(proxy.url()))
        #expect(
            none
                == "backend unreachable at \(url): proxy 127.0.0.1:\(proxy.port) answered 407 Proxy Authentication Required (the proxy URL holds no user:password@)"
        )
        let wrong = ForwardProxy.Credentials(user: "fleet", password: "wrong-secret")
        let refused = try await Self.failure(url, proxy: try Self.settings(proxy.url(credentials: wrong)))
        #expect(
            refused
                == "backend unreachable at \(url): proxy 127.0.0.1:\(proxy.port) answered 407 Proxy Authentication Required (it refused the user and password in the proxy URL)"
        )
        #expect(!refused.contains("wrong-secret"))
        let tunnelled = try await Self.failure(url, proxy: Self.tunnelling(try Self.settings(proxy.url())))
        #expect(tunnelled == none, "a 407 reads the same on either road")
    }

    @Test func aDeadProxyIsNamed() async throws {
        // Nothing listens there, and no other test's server is given the port while it is held.
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        let message = try await Self.failure(
            "http://\(Self.hidden):80/t", proxy: try Self.settings("http://127.0.0.1:\(port)"))
        #expect(
            message
                == "backend unreachable at http://\(Self.hidden):80/t: proxy 127.0.0.1:\(port) refused the connection")
        let https = try await Self.failure(
            "https://\(Self.hidden)/t", proxy: try Self.settings("http://127.0.0.1:\(port)"))
        #expect(
            https == "backend unreachable at https://\(Self.hidden)/t: proxy 127.0.0.1:\(port) refused the connection",
            "a proxy that is down is not a refused tunnel")
    }

    @Test func aBackendTheProxyCannotReachIsARefusedTunnel() async throws {
        let proxy = try await ForwardProxy.start(names: [:])
        defer { Task { await proxy.stop() } }
        let message = try await Self.failure("https://nowhere.proxy-only.test/t", proxy: try Self.settings(proxy.url()))
        #expect(
            message
                == "backend unreachable at https://nowhere.proxy-only.test/t: proxy 127.0.0.1:\(proxy.port) refused CONNECT to "
                + "nowhere.proxy-only.test:443 with 502 Bad Gateway (the proxy could not reach the backend)")
    }
}
