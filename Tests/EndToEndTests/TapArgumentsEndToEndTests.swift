import Foundation
import TestSupport
import Testing

/// `tokendash tap` refusing to start: a bad `--upstream` or a listening address in use is one
/// line on stderr and exit 2, before any request is taken.
@Suite(.timeLimit(.minutes(15))) struct TapArgumentsEndToEndTests {
    @Test func aBadUpstreamIsOneLineAndExit2() async throws {
        let result = try await BinaryRunner.run([
            "tap", "--listen", "127.0.0.1:0", "--upstream", "ftp://tokens.example", "--watch",
        ])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "tokendash tap: --upstream ftp://tokens.example: not an http:// or https:// URL with a host\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func anAddressInUseIsOneLineAndExit2() async throws {
        let first = try BackgroundProcess(
            BinaryRunner.binary, ["tap", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--watch"],
            name: "tap")
        defer { Task { await first.stop() } }
        let address = try #require(
            try await first.await(#"listening on http://(127\.0\.0\.1:\d+)"#), "tap: \(first.output)")
        let second = try await BinaryRunner.run([
            "tap", "--listen", address, "--upstream", "http://127.0.0.1:9", "--watch",
        ])
        #expect(second.status == 2)
        #expect(second.stderr == "tokendash tap: --listen \(address): address already in use\n")
    }

    /// `--upstream-keepalive` past either end of its range (1 to 1,000) is the flag's one line and
    /// exit 64, before anything starts.
    @Test(arguments: ["0", "1001", "-1"])
    func anUpstreamKeepaliveOutOfRangeIsRefused(_ value: String) async throws {
        let result = try await BinaryRunner.run([
            "tap", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--upstream-keepalive", value,
            "--watch",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--upstream-keepalive must be between 1 and 1000"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// Its ends are taken: the run goes on to the next check, the upstream's (refused here, exit 2).
    @Test(arguments: ["1", "1000"])
    func theUpstreamKeepalivesEndsAreTaken(_ value: String) async throws {
        let result = try await BinaryRunner.run([
            "tap", "--listen", "127.0.0.1:0", "--upstream", "ftp://tokens.example", "--upstream-keepalive", value,
            "--watch",
        ])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "tokendash tap: --upstream ftp://tokens.example: not an http:// or https:// URL with a host\n")
    }
}
