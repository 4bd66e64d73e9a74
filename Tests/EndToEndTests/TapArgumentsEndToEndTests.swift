import Foundation
import TestSupport
import Testing

/// `tokendash tap` refusing to start: a bad `--upstream` or a listening address in use is one
/// line on stderr and exit 2, before any request is taken.
@Suite(.timeLimit(.minutes(3))) struct TapArgumentsEndToEndTests {
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
}
