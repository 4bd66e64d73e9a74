import Foundation
import Testing

/// `tokendash-bench`'s command line, as docs/benchmarks.md shows it: `--help` lists the sections
/// and exits 0; an unknown section is one line and exit 2, before anything is measured.
@Suite(.timeLimit(.minutes(15)))
struct BenchArgumentsEndToEndTests {
    static var bench: URL { BinaryRunner.binary.deletingLastPathComponent().appendingPathComponent("tokendash-bench") }

    @Test func helpListsTheSectionsAndExitsZero() async throws {
        let result = try await BinaryRunner.run(["--help"], executable: Self.bench)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("usage: tokendash-bench [--json] [SECTION...]"), "\(result.stdout)")
        #expect(result.stdout.contains("provider, mint, render"), "\(result.stdout)")
        #expect(
            result.stdout.contains("only when named (minutes long): ramp, tap-soak, tap-reader"), "\(result.stdout)")
    }

    @Test func anUnknownSectionIsOneLineAndExitTwo() async throws {
        let result = try await BinaryRunner.run(["no-such-section"], executable: Self.bench)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix("tokendash-bench: no section \"no-such-section\"; sections: provider"),
            "\(result.stderr)")
    }
}
