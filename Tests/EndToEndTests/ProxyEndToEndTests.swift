import FlyingFox
import Foundation
import LoopbackProxy
import ProviderVocabulary
import TestSupport
import Testing

/// `tokendash` behind a corporate proxy, as a support engineer runs it: the proxy variables in the
/// environment, a real forward proxy on loopback, and a backend whose name only the proxy resolves.
@Suite(.serialized, .timeLimit(.minutes(15))) struct ProxyEndToEndTests {
    static let hidden = "token-backend.proxy-only.test"
    static let credentials = ForwardProxy.Credentials(user: "fleet", password: "hunter2-proxy")

    /// Answers /t/ID and /v/ID with a token for that trip or vehicle.
    static func backend() async throws -> LoopbackServer {
        try await LoopbackServer.start { request in
            let id = request.path.split(separator: "/").last.map(String.init) ?? ""
            let kind: ProviderKind = request.path.hasPrefix("/t/") ? .consumer : .driver
            let jwt = TestJWT.make(kind: kind, id: id, lifetime: 600, account: TestJWT.nonServiceAccount)
            return HTTPResponse(
                statusCode: .ok,
                body: Data(TestJWT.responseBody(jwt, expiresAtSeconds: Int(Date().timeIntervalSince1970) + 600).utf8))
        }
    }

    static func port(_ server: LoopbackServer) -> Int { URL(string: server.base)?.port ?? 0 }

    /// The request timeout of a run that judges answers, not their time: the proxy and the
    /// backend run in this test process, and a full run's other suites once slowed their answers
    /// past the default 10 s. `watch` waits for a call out at its end up to this timeout; a hang
    /// is the suite's time limit's.
    static let patient = ["--timeout", "\(Int(patientTimeout))"]

    @Test func watchReachesABackendOnlyTheProxyCanResolveThroughHTTPProxy() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: [Self.hidden: "127.0.0.1"], credentials: Self.credentials)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let base = "http://\(Self.hidden):\(Self.port(backend))"
        let result = try await BinaryRunner.run(
            [
                "watch", "--duration", "2", "--update-interval", "0.5", "--summary",
                "--consumer-url", "\(base)/t/{tripId}", "--driver-url", "\(base)/v/{vehicleId}",
            ] + Self.patient,
            environment: ["http_proxy": proxy.url(credentials: Self.credentials), "no_proxy": "localhost"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("\"event\":\"fetched\""))
        #expect(
            result.stderr.contains(
                "backend \(base)/t/{tripId} | \(base)/v/{vehicleId} via proxy http://‹hidden›@127.0.0.1:\(proxy.port)"),
            "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("hunter2-proxy"), "the proxy password never shows")
        // Plain http goes to the proxy in absolute form, as curl sends it, with the proxy's login.
        #expect(proxy.seen.contains { $0.line.hasPrefix("GET \(base)/") && $0.authorization != nil }, "\(proxy.seen)")
        #expect(!proxy.seen.contains { $0.line.hasPrefix("CONNECT") }, "\(proxy.seen)")
    }

    /// `--proxy-tunnel`, curl's `--proxytunnel`: http goes through a CONNECT tunnel too, and
    /// `config check` says which way http goes.
    @Test func proxyTunnelAsksForCONNECTForHTTP() async throws {
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: [Self.hidden: "127.0.0.1"])
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let base = "http://\(Self.hidden):\(Self.port(backend))"
        let result = try await BinaryRunner.run(
            [
                "watch", "--duration", "1.5", "--update-interval", "0.5", "--only", "consumer", "--proxy-tunnel",
                "--consumer-url", "\(base)/t/{tripId}",
            ] + Self.patient,
            environment: ["http_proxy": proxy.url()])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            proxy.seen.contains { $0.line == "CONNECT \(Self.hidden):\(Self.port(backend)) HTTP/1.1" }, "\(proxy.seen)")
        #expect(!proxy.seen.contains { $0.line.hasPrefix("GET") }, "\(proxy.seen)")
        let check = try await BinaryRunner.run(
            ["config", "check", "--proxy-tunnel"], environment: ["http_proxy": proxy.url()])
        #expect(
            check.stdout.split(separator: "\n").contains { $0.hasPrefix("proxy-http") && $0.contains("CONNECT") },
            "\(check.stdout)")
        let plain = try await BinaryRunner.run(["config", "check"], environment: ["http_proxy": proxy.url()])
        #expect(
            plain.stdout.split(separator: "\n").contains { $0.hasPrefix("proxy-http") && $0.contains("absolute form") },
            "\(plain.stdout)")
    }

    /// A gateway behind the proxy that quotes the proxy's login in its error page (some corporate
    /// proxies pass `Proxy-Authorization` on): the password and the Basic credential are hidden
    /// in `watch`'s failure as a header value is, not only in the proxy URL.
    @Test func aBackendQuotingTheProxysCredentialsNeverShowsThem() async throws {
        let basic = Data("fleet:hunter2-proxy".utf8).base64EncodedString()
        let backend = try await LoopbackServer.start { _ in
            HTTPResponse(
                statusCode: .badGateway,
                body: Data("gateway refused: login fleet:hunter2-proxy (Proxy-Authorization: Basic \(basic))".utf8))
        }
        let proxy = try await ForwardProxy.start(names: [Self.hidden: "127.0.0.1"], credentials: Self.credentials)
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let base = "http://\(Self.hidden):\(Self.port(backend))"
        let result = try await BinaryRunner.run(
            [
                "watch", "--duration", "1.5", "--update-interval", "0.5", "--only", "consumer", "--consumer-url",
                "\(base)/t/{tripId}",
            ] + Self.patient,
            environment: ["http_proxy": proxy.url(credentials: Self.credentials)])
        let output = result.stdout + result.stderr
        #expect(
            output.contains("gateway refused: login fleet:‹hidden›"), "the backend's text is still shown: \(output)")
        #expect(!output.contains("hunter2-proxy"), "\(output)")
        #expect(!output.contains(basic), "\(output)")
    }

    @Test func watchReachesAnHTTPSBackendThroughHTTPSProxyWithAPrivateCA() async throws {
        let pki = try TestPKI(name: "Proxy End-to-End CA")
        let (certificate, key) = try pki.leaf(dnsNames: [Self.hidden], ips: [])
        let jwt = TestJWT.make(kind: .consumer, id: "trip-0001", lifetime: 600, account: TestJWT.nonServiceAccount)
        let body = Data(TestJWT.responseBody(jwt, expiresAtSeconds: Int(Date().timeIntervalSince1970) + 600).utf8)
        let backend = try await TLSTestServer.start(certificate: certificate, key: key, body: body)
        let proxy = try await ForwardProxy.start(names: [Self.hidden: "127.0.0.1"])
        defer {
            Task {
                await backend.stop()
                await proxy.stop()
            }
        }
        let result = try await BinaryRunner.run(
            [
                "watch", "--duration", "1.5", "--update-interval", "0.5", "--only", "consumer", "--cacert", pki.caFile,
                "--consumer-url", "https://\(Self.hidden):\(backend.port)/t/{tripId}",
            ] + Self.patient,
            environment: ["HTTPS_PROXY": proxy.url()])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("via proxy http://127.0.0.1:\(proxy.port)"), "\(result.stderr)")
        #expect(proxy.seen.contains { $0.line == "CONNECT \(Self.hidden):\(backend.port) HTTP/1.1" })
    }

    /// The SDKs' Fleet Engine calls take the backend's road: through the proxy, trusting `--cacert`.
    /// Fleet Engine's name is known to the proxy alone and its certificate is signed by a private
    /// CA, so an OK answer means the call went through the proxy and its TLS was verified.
    @Test func fleetEngineCallsGoThroughTheProxyWithThePrivateCA() async throws {
        let fleetEngineHost = "fleetengine.proxy-only.test"
        let pki = try TestPKI(name: "Proxy Fleet Engine CA")
        let (certificate, key) = try pki.leaf(dnsNames: [fleetEngineHost], ips: [])
        let fleetEngine = try await TLSTestServer.start(
            certificate: certificate, key: key, body: Data(#"{"name":"trip"}"#.utf8))
        let backend = try await Self.backend()
        let proxy = try await ForwardProxy.start(names: [Self.hidden: "127.0.0.1", fleetEngineHost: "127.0.0.1"])
        defer {
            Task {
                await backend.stop()
                await fleetEngine.stop()
                await proxy.stop()
            }
        }
        let base = "http://\(Self.hidden):\(Self.port(backend))"
        let answers = try await FleetEngineEndToEndTests.watchCalls(
            [
                "--only", "consumer", "--consumer-url", "\(base)/t/{tripId}", "--cacert", pki.caFile, "--proxy",
                proxy.url(),
                "--fleet-engine", "https://\(fleetEngineHost):\(fleetEngine.port)", "--provider-id", "my-project",
            ],
            providers: ["consumer"])
        let call = try #require(answers["consumer"], "no fleet_engine_call line")
        #expect(call["method"]?.stringValue == "GetTrip")
        #expect(call["status"]?.stringValue == "OK", "\(call)")
        #expect(
            proxy.seen.contains { $0.line == "CONNECT \(fleetEngineHost):\(fleetEngine.port) HTTP/1.1" },
            "\(proxy.seen)")
    }

    @Test func aDeadProxyIsNamedInTheFailure() async throws {
        let result = try await BinaryRunner.run(
            ["watch", "--duration", "1", "--only", "consumer", "--consumer-url", "http://\(Self.hidden)/t/{tripId}"],
            environment: ["http_proxy": "http://127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("proxy 127.0.0.1:1 refused the connection"), "\(result.stderr)")
    }

    @Test func noProxyFlagOverridesTheEnvironment() async throws {
        let backend = try await Self.backend()
        defer { Task { await backend.stop() } }
        // The variable points at nothing: only going direct can succeed.
        let result = try await BinaryRunner.run(
            [
                "watch", "--duration", "1.5", "--update-interval", "0.5", "--no-proxy",
                "--consumer-url", "\(backend.base)/t/{tripId}", "--driver-url", "\(backend.base)/v/{vehicleId}",
            ] + Self.patient,
            environment: ["http_proxy": "http://127.0.0.1:1"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("via proxy"))
    }

    @Test(arguments: [
        (
            ["--proxy", "socks5://127.0.0.1:1080"], [String: String](),
            "--proxy: only http:// proxies are supported, not socks5://"
        ),
        (
            ["--proxy", "http://u:secret@proxy:99999"], [:],
            "--proxy: port out of range: \"http://‹hidden›@proxy:99999\""
        ),
        (["--proxy", "http://p:1", "--no-proxy"], [:], "give --proxy or --no-proxy, not both"),
        ([], ["https_proxy": "http://u:secret@:3128"], "https_proxy: no host"),
    ])
    func aBadProxyIsOneLineAndExit64(_ arguments: [String], _ environment: [String: String], _ message: String)
        async throws
    {
        let result = try await BinaryRunner.run(["watch", "--duration", "1"] + arguments, environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
    }

    @Test func configCheckShowsTheProxyAndWhereItCameFrom() async throws {
        let fromEnvironment = try await BinaryRunner.run(
            ["config", "check"],
            environment: ["https_proxy": "http://fleet:hunter2@127.0.0.1:3128", "NO_PROXY": ".corp.test"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        let proxyLine =
            fromEnvironment.stdout.split(separator: "\n").first { $0.hasPrefix("proxy ") }.map(String.init) ?? ""
        #expect(
            proxyLine.contains("http://‹hidden›@127.0.0.1:3128 (https only)")
                && proxyLine.hasSuffix("environment https_proxy"), "\(fromEnvironment.stdout)")
        #expect(fromEnvironment.stdout.contains("no-proxy"), "\(fromEnvironment.stdout)")
        #expect(!fromEnvironment.stdout.contains("hunter2"))
        let fromFlag = try await BinaryRunner.run(
            ["config", "check", "--proxy", "http://127.0.0.1:8080"],
            environment: ["https_proxy": "http://127.0.0.1:3128"])
        let flagLine = fromFlag.stdout.split(separator: "\n").first { $0.hasPrefix("proxy ") }.map(String.init) ?? ""
        #expect(flagLine.contains("http://127.0.0.1:8080") && flagLine.hasSuffix("flag --proxy"), "\(fromFlag.stdout)")
    }

    @Test func aProfilesProxyReplacesTheVariablesAndNoProxyStillWins() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-proxy-\(UUID().uuidString).yaml")
        try "profiles:\n  corp:\n    proxy: http://fleet:hunter2@127.0.0.1:3128\n".write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromProfile = try await BinaryRunner.run(
            ["config", "check", "--config", file.path, "--profile", "corp"],
            environment: ["https_proxy": "http://127.0.0.1:9999"])
        let line = fromProfile.stdout.split(separator: "\n").first { $0.hasPrefix("proxy ") }.map(String.init) ?? ""
        #expect(
            line.contains("http://‹hidden›@127.0.0.1:3128 ") && line.contains("profile corp"),
            "\(fromProfile.stdout) \(fromProfile.stderr)")
        #expect(!fromProfile.stdout.contains("hunter2"))
        let overridden = try await BinaryRunner.run([
            "config", "check", "--config", file.path, "--profile", "corp", "--no-proxy",
        ])
        let none = overridden.stdout.split(separator: "\n").first { $0.hasPrefix("proxy ") }.map(String.init) ?? ""
        #expect(none.contains(" none ") && none.hasSuffix("flag --no-proxy"), "\(overridden.stdout)")
    }
}
