import Foundation
import Testing

/// The transport flags as a user meets them in `watch`.
@Suite(.serialized, .timeLimit(.minutes(15))) struct TransportEndToEndTests {
    @Test func insecureMarksEveryWatchLine() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--duration", "1.5", "--update-interval", "0.5", "--insecure", "--summary",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["insecure"] as? Bool == true, "\(line)")
        }
        #expect(result.stderr.contains("--insecure: the backend's TLS certificate is not verified"))
    }

    @Test func withoutInsecureNoLineSaysSo() async throws {
        let result = try await BinaryRunner.run(["watch", "--duration", "1", "--summary"])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("insecure"))
    }

    @Test func urlSecretsNeverReachWatchOutput() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--duration", "1", "--summary",
            "--consumer-url", "http://fleet:hunter2@127.0.0.1:1/t/{tripId}?api_key=SECRET-ONE&region=eu",
            "--driver-url", "http://127.0.0.1:1/v/{vehicleId}?access_token=SECRET-TWO",
        ])
        // Nothing listens on port 1: no token, so exit 1, and the final reason is redacted too.
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "ended without a valid token: backend unreachable at http://‹hidden›@127.0.0.1:1/t/trip-0001?api_key=‹hidden›&region=eu"
            ))
        for secret in ["hunter2", "SECRET-ONE", "SECRET-TWO"] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(secret) leaked")
        }
        #expect(
            result.stderr.contains(
                "backend http://‹hidden›@127.0.0.1:1/t/{tripId}?api_key=‹hidden›&region=eu | http://127.0.0.1:1/v/{vehicleId}?access_token=‹hidden›"
            ))
        #expect(
            result.stdout.contains(
                "backend unreachable at http://‹hidden›@127.0.0.1:1/t/trip-0001?api_key=‹hidden›&region=eu: connection refused"
            ))
    }

    @Test func cacertAndInsecureAreCheckedAtStart() async throws {
        let missing = try await BinaryRunner.run(["watch", "--duration", "1", "--cacert", "/nonexistent/ca.pem"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("--cacert: cannot read /nonexistent/ca.pem"))
        let both = try await BinaryRunner.run(["watch", "--duration", "1", "--cacert", "/etc/hostname", "--insecure"])
        #expect(both.status != 0)
        #expect(both.stderr.contains("give --cacert or --insecure, not both"))
    }
}
