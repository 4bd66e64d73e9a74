import Faults
import Foundation
import HTTPTransport
import LoopbackProxy
import ProviderEvents
import ProviderHost
import ProviderProxy
import ProviderVocabulary
import ProxyKit
import TestSupport
import Testing
import TokenServer

/// The customer's class in its real host, its URLSession (libcurl) sent through tokendash's
/// loopback proxy by the variables tokendash sets: each request a `backend_request` event, and the
/// faults acting at the proxy, whatever the backend. The proxy's latency runs on a stepped clock.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct ProviderProxyEndToEndTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/AsksEveryTime.swift")
    static let cache = FileManager.default.temporaryDirectory.appendingPathComponent(
        "tokendash-proxy-tests-\(getpid())")
    static let key: SigningKey = {
        do { return try SigningKey.generate() } catch { fatalError("cannot generate a test key: \(error)") }
    }()

    /// The fixture asking `url`, in its host, behind a proxy on `clock`.
    struct Rig {
        let provider: SourceTokenProvider<VehicleAuthorizationContext>
        let proxy: ProviderProxy
        let recorder: EventRecorder

        static func start(
            url: String, clock: SteppedClock, server: EmbeddedTokenServer? = nil, upstream: ProxySettings = .direct
        ) async throws -> Rig {
            let source = try ProviderSourceFile.read(fixture.path, role: .driver, providerURL: url)
            let built = try await HostBuilder(
                swiftc: try HostBuilder.findSwiftc(given: nil), sanitize: false, cacheRoot: cache
            ).build(source)
            let events = EventBroadcaster()
            let recorder = EventRecorder(events)
            let proxy = try await ProviderProxy.start(kind: .driver, upstream: upstream, events: events, clock: clock)
            // What tokendash gives the host: its proxy for both schemes, loopback included.
            var environment = ["SWIFT_BACKTRACE": "enable=no", "PATH": "/usr/bin:/bin"]
            for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"] { environment[name] = proxy.url }
            let launch = HostLaunch(
                executable: built.executable, fileName: "AsksEveryTime.swift", sourceText: source.buildText,
                environment: environment)
            let settings = SourceSettings(
                parallelCalls: 1,
                announce: { id in
                    server?.setSessionID(id, for: .driver)
                    proxy.announce(id)
                })
            let provider = SourceTokenProvider<VehicleAuthorizationContext>(
                launch: launch, settings: settings, events: events)
            return Rig(provider: provider, proxy: proxy, recorder: recorder)
        }

        /// One SDK call, cancelled with the test.
        func fetch() async -> Result<String, any Error> {
            let task = Task { () -> Result<String, any Error> in
                do {
                    return .success(try await provider.fetchToken(for: VehicleAuthorizationContext(id: "vehicle-1")))
                } catch { return .failure(error) }
            }
            return await task.cancellingValue
        }

        /// The next exchange the proxy logged.
        func nextExchange() async throws -> BackendExchange {
            let event = try await recorder.next(named: "backend_request")
            guard case .backendRequest(let exchange) = event.kind else { throw FleetAuthError.other("not an exchange") }
            return exchange
        }

        func stop() async {
            await provider.shutdown()
            await proxy.stop()
        }
    }

    /// While a call is held by the latency fault, steps the proxy's clock past it.
    static func stepPastLatency(_ clock: SteppedClock, seconds: TimeInterval) async {
        #expect(await eventually { clock.sleeping > 0 })
        clock.advance(by: seconds)
    }

    @Test func plainHTTPIsOneLinePerRequestAndLatencyAnd500ActAtTheProxy() async throws {
        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(lifetime: 600), key: Self.key)
        _ = try await server.start()
        let url = try #require(await server.sessionURL(.driver))
        let clock = SteppedClock()
        let rig = try await Rig.start(url: url, clock: clock, server: server)
        let faults = SessionFaults(server: server, proxied: [.driver: rig.proxy.faults])

        guard case .success = await rig.fetch() else {
            Issue.record("the first call failed")
            return
        }
        let plain = try await rig.nextExchange()
        #expect(plain.way == .http && plain.method == "GET" && plain.target == url && plain.status == 200)
        #expect(plain.bytesDown > 100 && plain.fault == nil)

        await faults.set(.latency, latencyMilliseconds: 2500, for: [.driver])
        // The fault acts at the proxy, not (again) at the server.
        #expect(await server.faults().isEmpty)
        async let late = rig.fetch()
        await Self.stepPastLatency(clock, seconds: 2.5)
        guard case .success = await late else {
            Issue.record("the late call failed")
            return
        }
        let slow = try await rig.nextExchange()
        #expect(slow.status == 200 && slow.latency >= 2.5 && slow.fault == "latency")

        let before = await server.stats().driver.requests
        await faults.set(.http500, latencyMilliseconds: Fault.defaultLatencyMilliseconds, for: [.driver])
        guard case .failure(let error) = await rig.fetch() else {
            Issue.record("the 500 call succeeded")
            return
        }
        #expect("\(error)".contains("missingData"))
        let refused = try await rig.nextExchange()
        #expect(refused.status == 500 && refused.fault == "http500")
        // The proxy answered: the backend never saw the request.
        #expect(await server.stats().driver.requests == before)

        // Faults the proxy cannot act out stay the server's, which still counts them.
        await faults.set(.wrongID, latencyMilliseconds: Fault.defaultLatencyMilliseconds, for: [.driver])
        let atServer = await server.faults()
        #expect(rig.proxy.faults.setting == nil && atServer[.driver]?.fault == .wrongID)
        await rig.stop()
        await server.stop()
    }

    @Test func anHTTPSBackendIsATunnelWithItsHostAndBytesAndLatencyDelaysIt() async throws {
        let pki = try TestPKI()
        let (certificate, key) = try pki.leaf()
        let backend = try await TLSTestServer.start(
            certificate: certificate, key: key, body: Data(#"{"jwt":"x"}"#.utf8))
        let clock = SteppedClock()
        let rig = try await Rig.start(url: backend.base + "/token", clock: clock)

        // Linux's URLSession cannot trust a test CA, so the handshake fails; the tunnel still carried it.
        _ = await rig.fetch()
        let tunnel = try await rig.nextExchange()
        #expect(tunnel.way == .tunnel && tunnel.method == "CONNECT" && tunnel.target == "127.0.0.1:\(backend.port)")
        #expect(tunnel.bytesUp > 100 && tunnel.bytesDown > 100)

        rig.proxy.faults.set(FaultSetting(.latency, latencyMilliseconds: 4000))
        async let late = rig.fetch()
        await Self.stepPastLatency(clock, seconds: 4)
        _ = await late
        let slow = try await rig.nextExchange()
        #expect(slow.way == .tunnel && slow.latency >= 4 && slow.fault == "latency")

        rig.proxy.faults.set(FaultSetting(.drop))
        guard case .failure = await rig.fetch() else {
            Issue.record("a dropped tunnel succeeded")
            return
        }
        let dropped = try await rig.nextExchange()
        #expect(dropped.problem?.contains("drop") == true && dropped.bytesDown == 0)
        await rig.stop()
        await backend.stop()
    }

    /// The user's own proxy (here the tests' `ForwardProxy`) carries the loopback proxy's requests
    /// as tokendash's transport sends them: the absolute form for http, a tunnel for https.
    @Test func theUsersOwnProxyCarriesTheRequestsOnward() async throws {
        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(lifetime: 600), key: Self.key)
        _ = try await server.start()
        let url = try #require(await server.sessionURL(.driver))
        let pki = try TestPKI()
        let (certificate, key) = try pki.leaf()
        let backend = try await TLSTestServer.start(
            certificate: certificate, key: key, body: Data(#"{"jwt":"x"}"#.utf8))
        let users = try await ForwardProxy.start(names: [:])
        let upstream = ProxySettings.single(
            try ProxyServer(parsing: users.url(), origin: "test"), environment: [:], source: "test")

        let plain = try await Rig.start(url: url, clock: SteppedClock(), server: server, upstream: upstream)
        guard case .success = await plain.fetch() else {
            Issue.record("the call through both proxies failed")
            return
        }
        #expect(try await plain.nextExchange().status == 200)
        let tunnelled = try await Rig.start(url: backend.base + "/token", clock: SteppedClock(), upstream: upstream)
        _ = await tunnelled.fetch()
        let tunnel = try await tunnelled.nextExchange()
        #expect(tunnel.way == .tunnel && tunnel.bytesDown > 100 && tunnel.problem == nil)
        #expect(users.seen.map(\.line) == ["GET \(url) HTTP/1.1", "CONNECT 127.0.0.1:\(backend.port) HTTP/1.1"])
        await plain.stop()
        await tunnelled.stop()
        await users.stop()
        await backend.stop()
        await server.stop()
    }
}
