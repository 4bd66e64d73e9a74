import Foundation
import Testing

/// Flags a user mistypes get the specific message, before anything starts.
@Suite struct ArgumentsEndToEndTests {
    @Test(arguments: [
        (["--trips", "-3"], "--trips and --vehicles must be between 1 and 100000"),
        (["watch", "--lifetime", "-5"], "--lifetime must be between 1 and 3600 seconds"),
        (["--vehicles", "-1"], "--trips and --vehicles must be between 1 and 100000"),
    ])
    func aNegativeNumberGetsTheRangeError(_ arguments: [String], _ message: String) async throws {
        let result = try await BinaryRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    @Test func versionPrintsTheVersion() async throws {
        let result = try await BinaryRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("tokendash "))
    }
}
