import Foundation
import HTTPTransport
import NIOSSL
import ProviderVocabulary
import ProxyKit
import TapForwarding
import TapReading
import TestSupport
import Testing
import TokenReading

/// TLS on both sides: the apps reach the tap over TLS (`--cert`/`--key`), and the tap reaches an
/// https backend signed by a private CA under the trust today's backends get (`--cacert`).
@Suite(.timeLimit(.minutes(15))) struct TLSTests {
    @Test func aTokenCrossesTLSOnBothSides() async throws {
        let pki = try TestPKI()
        let jwt = TestJWT.make(kind: .consumer, id: "trip-1", lifetime: 3600)
        let body = Data(TestJWT.responseBody(jwt, expiresAtSeconds: Int(Date().timeIntervalSince1970) + 3600).utf8)
        let (backendCertificate, backendKey) = try pki.leaf()
        let backend = try await TLSTestServer.start(certificate: backendCertificate, key: backendKey, body: body)
        let (certificate, key) = try pki.leaf()
        let listening = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [.certificate(certificate)],
                privateKey: .privateKey(key)))
        let readings = Readings()
        let analysis = TapAnalysis(reader: ExchangeReader(), churnLimit: 4, sinks: [readings.add])
        let reading = Task { await analysis.run() }
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0,
            upstream: Upstream(backend.base, trust: .certificates(pemFile: pki.caFile)),
            tls: listening, report: analysis.submit)
        let client = keptForTheRun(
            try HTTPClientTransport(
                trust: .certificates(pemFile: pki.caFile), reuseConnections: false, connectTimeout: patientTimeout))
        let url = try #require(URL(string: "https://127.0.0.1:\(tap.port)/token/consumer/trip-1"))
        let answer = try await client.send(TransportRequest(url: url, timeout: 600))
        #expect(answer.status == 200)
        #expect(answer.body == body)
        let read = await readings.wait(for: 1)
        #expect(read.first?.verdict == .ok)
        #expect(read.first?.fingerprint == TokenFingerprint.of(jwt))

        // Without the CA the backend is not trusted: the client hears why, in one line.
        let untrusting = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), tls: listening, report: nil)
        let refused = try await client.send(
            TransportRequest(url: try #require(URL(string: "https://127.0.0.1:\(untrusting.port)/x")), timeout: 600))
        #expect(refused.status == 502)
        #expect(
            String(decoding: refused.body, as: UTF8.self).hasPrefix("tokendash tap: upstream 127.0.0.1:\(backend.port)")
        )
        await client.shutdown()
        await tap.stop()
        await untrusting.stop()
        await backend.stop()
        analysis.finish()
        await reading.cancellingValue
    }

    /// `--cert FILE --key FILE` as the command reads them: a client trusting only the test CA
    /// reaches the tap over TLS; a file that holds no certificate, or none at all, is one line.
    @Test func theListeningCertificateAndKeyAreReadFromPEMFiles() async throws {
        let pki = try TestPKI()
        let (certificateFile, keyFile) = try pki.leafFiles()
        defer {
            for file in [certificateFile, keyFile, pki.caFile] { try? FileManager.default.removeItem(atPath: file) }
        }
        let jwt = TestJWT.make(kind: .driver, id: "vehicle-1", lifetime: 3600)
        let body = Data(TestJWT.responseBody(jwt, expiresAtSeconds: Int(Date().timeIntervalSince1970) + 3600).utf8)
        let backend = try ScriptedBackend { _ in
            ScriptedBackend.Answer(
                bytes: Data(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
                    + body)
        }
        defer { backend.stop() }
        let tls = try TapServer.tlsContext(certificate: certificateFile, key: keyFile)
        let tap = try await TapServer.start(
            host: "127.0.0.1", port: 0, upstream: Upstream(backend.base), tls: tls, report: nil)
        let client = keptForTheRun(
            try HTTPClientTransport(
                trust: .certificates(pemFile: pki.caFile), reuseConnections: false, connectTimeout: patientTimeout))
        let answer = try await client.send(
            TransportRequest(
                url: try #require(URL(string: "https://127.0.0.1:\(tap.port)/token/driver/vehicle-1")),
                timeout: 600))
        #expect(answer.status == 200)
        #expect(answer.body == body)
        // Plain http to the TLS port gets no answer a client could take for the backend's.
        let plain = try? RawHTTP.exchange(
            port: tap.port, "GET /token/driver/vehicle-1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(plain?.statusLine.hasPrefix("HTTP/1.1 200") != true)
        await client.shutdown()
        await tap.stop()

        #expect { try TapServer.tlsContext(certificate: keyFile, key: keyFile) } throws: {
            "\($0)".contains("no PEM certificate in \(keyFile)")
        }
        #expect { try TapServer.tlsContext(certificate: certificateFile, key: certificateFile) } throws: {
            "\($0)" == "--cert/--key: no PEM private key in \(certificateFile)"
        }
        #expect { try TapServer.tlsContext(certificate: "/nonexistent/cert.pem", key: keyFile) } throws: {
            "\($0)" == "--cert/--key: cannot read /nonexistent/cert.pem"
        }
    }
}
