import FlyingFox
import Foundation
import LoopbackProxy
import NetworkAddresses
import ProviderVocabulary
import ProxyKit
import TestSupport
import Testing

@testable import HTTPTransport

/// Plain http through a proxy in absolute form reads its answers exactly as a direct request
/// does: gzip and deflate decoded, a zip bomb and an oversized body refused in the same words,
/// a request body carried. The backend's name is known to the proxy alone.
@Suite(.timeLimit(.minutes(15))) struct AbsoluteFormProxyTests {
    static let hidden = ProxyTransportTests.hidden

    static func viaProxy(_ base: String, _ path: String) throws -> String {
        let port = try #require(URL(string: base)?.port)
        return "http://\(hidden):\(port)\(path)"
    }

    static func outcome(_ url: String, proxy: ForwardProxy, method: String = "GET", body: Data? = nil) async throws
        -> String
    {
        let request = TransportRequest(
            method: method, url: try #require(URL(string: url)), body: body, timeout: patientTimeout)
        do {
            let response = try await withTransport(.system, proxy: try ProxyTransportTests.settings(proxy.url())) {
                try await $0.send(request)
            }
            return "\(response.status) " + String(decoding: response.body, as: UTF8.self)
        } catch {
            return (error as? FleetAuthError)?.description ?? "not a FleetAuthError: \(error)"
        }
    }

    @Test(arguments: ["gzip", "deflate"])
    func aCompressedAnswerIsReadDecoded(encoding: String) async throws {
        let server = try await CompressingServer.start(body: CompressedAnswerTests.json, encoding: encoding)
        let proxy = try await ForwardProxy.start(names: ProxyTransportTests.names)
        defer {
            Task {
                await server.stop()
                await proxy.stop()
            }
        }
        let url = try Self.viaProxy(server.base, "/token/consumer/trip-1")
        let answer = try await Self.outcome(url, proxy: proxy)
        #expect(answer == "200 " + String(decoding: CompressedAnswerTests.json, as: UTF8.self))
        #expect(server.acceptEncoding == "gzip, deflate")
        #expect(proxy.seen.map(\.line) == ["GET \(url) HTTP/1.1"])
    }

    @Test func aZipBombIsRefusedInTheSameWords() async throws {
        let server = try await CompressingServer.start(body: Data(count: 400_000), encoding: "gzip")
        let proxy = try await ForwardProxy.start(names: ProxyTransportTests.names)
        defer {
            Task {
                await server.stop()
                await proxy.stop()
            }
        }
        let message = try await Self.outcome(try Self.viaProxy(server.base, "/t"), proxy: proxy)
        #expect(
            message
                == "backend's gzip answer expands more than \(HTTPClientTransport.maximumCompressionRatio)× its compressed size: refused as a possible zip bomb"
        )
    }

    @Test func anOversizedBodyStopsAtTheCap() async throws {
        let server = try await LoopbackServer.start { _ in HTTPResponse(statusCode: .ok, body: Data(count: 200_000)) }
        let proxy = try await ForwardProxy.start(names: ProxyTransportTests.names)
        defer {
            Task {
                await server.stop()
                await proxy.stop()
            }
        }
        let message = try await Self.outcome(try Self.viaProxy(server.base, "/t"), proxy: proxy)
        #expect(message == FleetAuthError.bodyTooLarge(limit: 64 * 1024).description)
    }

    @Test func aRequestBodyIsCarried() async throws {
        let server = try await LoopbackServer.start { request in
            HTTPResponse(
                statusCode: .ok,
                body: Data("\(request.method.rawValue) ".utf8) + ((try? await request.bodyData) ?? Data()))
        }
        let proxy = try await ForwardProxy.start(names: ProxyTransportTests.names)
        defer {
            Task {
                await server.stop()
                await proxy.stop()
            }
        }
        let url = try Self.viaProxy(server.base, "/v1/providers/p/vehicles/v-1?updateMask=lastLocation")
        let answer = try await Self.outcome(url, proxy: proxy, method: "PUT", body: Data(#"{"name":"v-1"}"#.utf8))
        #expect(answer == #"200 PUT {"name":"v-1"}"#)
        #expect(proxy.seen.map(\.line) == ["PUT \(url) HTTP/1.1"])
    }

    /// The target cut from the URL's text is the one `URLComponents` makes, for every URL the
    /// transport can be given: hosts by name, IPv4 and IPv6, users, ports, paths, queries,
    /// fragments, percent-encodings, an empty path and an empty port.
    @Test func theTargetIsTheOneURLComponentsMakes() throws {
        func reference(_ url: URL) -> (target: String, host: String)? {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                let rawHost = components.percentEncodedHost, !rawHost.isEmpty
            else { return nil }
            components.user = nil
            components.password = nil
            components.fragment = nil
            if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
            guard let target = components.string else { return nil }
            return (target, HostPort.bracketed(rawHost) + (components.port.map { ":\($0)" } ?? ""))
        }
        let hosts = [
            "example.test", "127.0.0.1", "[::1]", "[fe80::1]", "Token-Backend.Example.COM", "xn--bcher-kva.test",
        ]
        let users = ["", "user@", "user:pw@", "u%40x:p%3Aw@"]
        let ports = ["", ":8080", ":80", ":"]
        let paths = ["", "/", "/token/driver/v-1", "/a%20b/c", "/token/consumer/trip%2F1", "/x;y=1"]
        let queries = ["", "?trip=t-1", "?x=1&y=%2F", "?", "?a=b?c"]
        let fragments = ["", "#frag", "#"]
        var checked = 0
        for scheme in ["http", "https"] {
            for host in hosts {
                for user in users {
                    for port in ports {
                        for path in paths {
                            for query in queries {
                                for fragment in fragments {
                                    let text = "\(scheme)://\(user)\(host)\(port)\(path)\(query)\(fragment)"
                                    guard let url = URL(string: text) else { continue }
                                    let cut = AbsoluteFormExchange.target(url)
                                    var expected = reference(url)
                                    // URLComponents gives an IDN's host percent-encoded; the Host header wants its ASCII form.
                                    // An empty port, which URLComponents keeps before some paths and not others, goes.
                                    if port == ":", let target = expected?.target {
                                        expected?.target = target.replacingOccurrences(of: host + ":", with: host)
                                    }
                                    if host.hasPrefix("xn--") {
                                        #expect(cut?.host.hasPrefix(host) == true, "\(text)")
                                        expected?.host = cut?.host ?? ""
                                    }
                                    #expect(
                                        cut?.target == expected?.target && cut?.host == expected?.host,
                                        "\(text): \(String(describing: cut)) against \(String(describing: expected))")
                                    checked += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        #expect(checked > 10_000)
    }

    @Test func theTargetKeepsPathAndQueryAndDropsTheUserAndFragment() throws {
        let url = try #require(URL(string: "http://user:pw@[::1]:8080/a%20b/c?x=1&y=%2F#frag"))
        let target = try #require(AbsoluteFormExchange.target(url))
        #expect(target.target == "http://[::1]:8080/a%20b/c?x=1&y=%2F")
        #expect(target.host == "[::1]:8080")
        #expect(
            AbsoluteFormExchange.target(try #require(URL(string: "http://example.test")))?.target
                == "http://example.test/")
    }
}
