import Foundation
import JSONValues
import ProviderVocabulary
import TestSupport
import Testing
import TokenReading

/// `tokendash tap` as an operator deploys it: a real nginx (`proxy_pass`) in front of the tap,
/// the tap in front of a token backend (`tokendash serve`). A device's request through nginx gets
/// the backend's token; the tap prints what it read, and no cookie, credential or token.
@Suite(.timeLimit(.minutes(15)), .serialized) struct TapNginxEndToEndTests {
    @Test(.enabled(if: NginxServer.missing == nil, "\(NginxServer.missing ?? "")"))
    func nginxCarriesDevicesThroughTheTap() async throws {
        let serve = try BackgroundProcess(BinaryRunner.binary, ["serve", "--port", "0"], name: "serve")
        defer { Task { await serve.stop() } }
        let backend = try #require(
            try await serve.await(#"listening on (http://127\.0\.0\.1:\d+)"#), "serve: \(serve.output)")
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-tap-\(UUID().uuidString).jsonl"
        ).path
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let tap = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "tap", "--listen", "127.0.0.1:0", "--upstream", backend, "--watch",
                "--record", recording,
            ], name: "tap")
        defer { Task { await tap.stop() } }
        let listening = try #require(
            try await tap.await(#"listening on http://(127\.0\.0\.1:\d+)"#), "tap: \(tap.output)")

        try await NginxServer.run(upstream: listening) { nginx in
            let secretCookie = "session=cookie-secret-4711"
            let secretCredential = "Bearer app-credential-0815"
            let request = TransportRequest(
                url: try #require(URL(string: "\(nginx.url)/token/consumer/trip-nginx")),
                headers: [
                    HTTPHeader(name: "Cookie", value: secretCookie),
                    HTTPHeader(name: "Authorization", value: secretCredential),
                ],
                timeout: 600)
            let answer = try await sharedTransport.send(request)
            #expect(answer.status == 200)
            let json = try JSONValue.decode(answer.body)
            let token = try #require(
                json["jwt"]?.stringValue, "backend's answer: \(String(decoding: answer.body, as: UTF8.self))")

            let line = try #require(try await tap.await(#"(\{[^\n]*"event":"tapped"[^\n]*\})"#), "tap: \(tap.output)")
            let tapped = try JSONValue.decode(Data(line.utf8))
            #expect(tapped["id"] == .string("trip-nginx"))
            #expect(tapped["provider"] == .string("consumer"))
            #expect(tapped["http_status"] == .int(200))
            #expect(tapped["fingerprint"] == .string(TokenFingerprint.of(token)))
            #expect(tapped["verdict"] == .string("ok") || tapped["verdict"] == .string("warn"))
            #expect(nginx.accessLog.contains("GET /token/consumer/trip-nginx HTTP/1.1\" 200"))
            for secret in [token, "cookie-secret-4711", "app-credential-0815"] {
                #expect(!tap.output.contains(secret), "the tap printed a secret")
            }
        }
        // The tapped session replays as any other: the device's fetch as a provider's event.
        await tap.stop()
        let replayed = try await BinaryRunner.run(["replay", recording, "--to-watch"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let fetched = replayed.stdout.split(separator: "\n").first { $0.contains(#""event":"fetched""#) }
        #expect(fetched?.contains(#""id":"trip-nginx""#) == true, "replay: \(replayed.stdout)")
        #expect(!replayed.stdout.contains("cookie-secret-4711") && !replayed.stdout.contains("app-credential-0815"))
    }
}
