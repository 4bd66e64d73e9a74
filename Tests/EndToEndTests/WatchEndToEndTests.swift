import Foundation
import Testing

/// `tokendash watch` as a script would use it: the real binary, the embedded server, loopback HTTP.
@Suite(.serialized) struct WatchEndToEndTests {
    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let dict = object as? [String: Any] else { throw CocoaError(.coderInvalidValue) }
            return dict
        }
    }

    @Test func printsEventsAsJSONLinesAndASummary() async throws {
        let result = try await BinaryRunner.run(["watch", "--duration", "2.5", "--update-interval", "0.5", "--callers", "3", "--summary"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try objects(result.stdout)
        let fetched = lines.filter { $0["event"] as? String == "fetched" }
        #expect(Set(fetched.compactMap { $0["provider"] as? String }) == ["consumer", "driver"])
        for event in fetched {
            let token = event["token"] as? String ?? ""
            #expect(token.contains("…") && token.count < 30, "tokens are redacted by default")
            let claims = event["claims"] as? [String: Any]
            #expect(claims?["aud"] as? String == "https://fleetengine.googleapis.com/")
            #expect((event["time"] as? String)?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
        }
        let summary = try #require(lines.last)
        #expect(summary["event"] as? String == "summary")
        let consumer = summary["consumer"] as? [String: Any]
        // 3 callers at each of about 5 updates: one request, the rest from the cache.
        #expect(consumer?["requests"] as? Int == 1)
        #expect((consumer?["hits"] as? Int ?? 0) >= 6)
        #expect(result.stderr.contains("embedded token server on http://127.0.0.1:"))
    }

    @Test func revealPrintsWholeTokens() async throws {
        let result = try await BinaryRunner.run(["watch", "--duration", "1", "--reveal"])
        let fetched = try objects(result.stdout).filter { $0["event"] as? String == "fetched" }
        #expect(!fetched.isEmpty)
        for event in fetched { #expect((event["token"] as? String)?.split(separator: ".").count == 3) }
    }

    @Test func aDeadBackendIsReportedPerEvent() async throws {
        let result = try await BinaryRunner.run(["watch", "--duration", "1", "--consumer-url", "http://127.0.0.1:1/t/{tripId}",
                                           "--driver-url", "http://127.0.0.1:1/v/{vehicleId}", "--summary"])
        // No SDK holds a token at the end: a script or health check sees exit 1 and the reason.
        #expect(result.status == 1)
        #expect(result.stderr.contains("tokendash watch: trip ID trip-0001 ended without a valid token: backend unreachable at http://127.0.0.1:1/t/trip-0001: connection refused (and 1 more)"), "\(result.stderr)")
        let failures = try objects(result.stdout).filter { $0["event"] as? String == "fetch_failed" && $0["provider"] as? String == "consumer" }
        #expect(failures.first?["error"] as? String == "backend unreachable at http://127.0.0.1:1/t/trip-0001: connection refused")
    }

    @Test func aBadFlagIsOneClearLine() async throws {
        let result = try await BinaryRunner.run(["watch", "--consumer-url", "http://x/{tripId}"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("give both --consumer-url and --driver-url"))
    }
}
