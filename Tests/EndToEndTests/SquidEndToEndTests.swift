import FlyingFox
import Foundation
import ProviderVocabulary
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `tokendash` behind Debian's squid as installed (issue 33): plain http goes to it in absolute
/// form, https through CONNECT, and a CONNECT its stock rules refuse is named with squid's status.
/// Squid's own access log shows the route each request took.
@Suite(
    .serialized, .timeLimit(.minutes(15)),
    .enabled(
        if: SquidProxy.missing == nil, "squid is not installed (apt-get install squid; scripts/setup.sh installs it)"))
struct SquidEndToEndTests {
    static func tokenBody(_ kind: ProviderKind, _ id: String) -> Data {
        let jwt = TestJWT.make(kind: kind, id: id, lifetime: 600, account: TestJWT.nonServiceAccount)
        return Data(TestJWT.responseBody(jwt, expiresAtSeconds: Int(Date().timeIntervalSince1970) + 600).utf8)
    }

    @Test func watchReachesAnHTTPBackendThroughSquidInAbsoluteForm() async throws {
        let backend = try await ProxyEndToEndTests.backend()
        defer { Task { await backend.stop() } }
        try await SquidProxy.run { squid in
            let result = try await BinaryRunner.run(
                [
                    "watch", "--duration", "2", "--update-interval", "0.5", "--summary",
                    "--consumer-url", "\(backend.base)/t/{tripId}", "--driver-url", "\(backend.base)/v/{vehicleId}",
                ],
                environment: ["http_proxy": squid.url])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("\"event\":\"fetched\""), "\(result.stdout)")
            #expect(!result.stdout.contains("\"event\":\"fetch_failed\""), "\(result.stdout)")
            let line = try await squid.awaitLogLine("TCP_MISS/200", "GET \(backend.base)/t/trip-0001")
            #expect(line != nil, "squid's log: \(squid.accessLog)")
            #expect(!squid.accessLog.contains("CONNECT"), "no tunnel for http: \(squid.accessLog)")
        }
    }

    /// Port 443 is the one squid's stock rules open CONNECT to; binding it needs root, which CI has.
    @Test(.enabled(if: getuid() == 0, "binding port 443 needs root"))
    func anHTTPSBackendOn443IsReachedThroughCONNECT() async throws {
        let pki = try TestPKI(name: "Squid End-to-End CA")
        let (certificate, key) = try pki.leaf(dnsNames: [], ips: [[127, 0, 0, 1]])
        let backend = try await TLSTestServer.start(
            certificate: certificate, key: key, body: Self.tokenBody(.consumer, "trip-0001"), port: 443)
        defer { Task { await backend.stop() } }
        try await SquidProxy.run { squid in
            let result = try await BinaryRunner.run(
                [
                    "watch", "--duration", "1.5", "--update-interval", "0.5", "--only", "consumer", "--cacert",
                    pki.caFile,
                    "--consumer-url", "https://127.0.0.1/t/{tripId}",
                ],
                environment: ["https_proxy": squid.url])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("\"event\":\"fetched\""), "\(result.stdout)")
            // Logged when the tunnel closes, which watch's exit does.
            let line = try await squid.awaitLogLine("TCP_TUNNEL/200", "CONNECT 127.0.0.1:443")
            #expect(line != nil, "squid's log: \(squid.accessLog)")
        }
    }

    @Test func anHTTPSBackendOn8443IsRefusedWithSquidsStatusInWords() async throws {
        try await SquidProxy.run { squid in
            let result = try await BinaryRunner.run(
                [
                    "watch", "--duration", "1", "--only", "consumer", "--consumer-url",
                    "https://127.0.0.1:8443/t/{tripId}",
                ],
                environment: ["https_proxy": squid.url])
            #expect(result.status == 1)
            #expect(
                result.stderr.contains(
                    "proxy 127.0.0.1:\(squid.port) refused CONNECT to 127.0.0.1:8443 with 403 Forbidden "
                        + "(squid's default allows CONNECT to port 443 only)"), "\(result.stderr)")
            let line = try await squid.awaitLogLine("TCP_DENIED/403", "CONNECT 127.0.0.1:8443")
            #expect(line != nil, "squid's log: \(squid.accessLog)")
        }
    }

    @Test func fleetEngineCallsGoThroughSquid() async throws {
        let backend = try await ProxyEndToEndTests.backend()
        let fleetEngine = try await LoopbackServer.start { _ in
            HTTPResponse(statusCode: .ok, body: Data(#"{"name":"trip"}"#.utf8))
        }
        defer {
            Task {
                await backend.stop()
                await fleetEngine.stop()
            }
        }
        try await SquidProxy.run { squid in
            let answers = try await FleetEngineEndToEndTests.watchCalls(
                [
                    "--only", "consumer", "--consumer-url", "\(backend.base)/t/{tripId}", "--proxy", squid.url,
                    "--fleet-engine", fleetEngine.base, "--provider-id", "my-project",
                ],
                providers: ["consumer"])
            let call = try #require(answers["consumer"], "no fleet_engine_call line")
            #expect(call["method"]?.stringValue == "GetTrip")
            #expect(call["status"]?.stringValue == "OK", "\(call)")
            let line = try await squid.awaitLogLine(
                "TCP_MISS/200", "GET \(fleetEngine.base)/v1/providers/my-project/trips/trip-0001")
            #expect(line != nil, "squid's log: \(squid.accessLog)")
        }
    }
}
