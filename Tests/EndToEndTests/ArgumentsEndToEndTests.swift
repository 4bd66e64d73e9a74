import Foundation
import Testing

/// Flags a user mistypes get the specific message, before anything starts.
@Suite(.timeLimit(.minutes(15))) struct ArgumentsEndToEndTests {
    @Test(arguments: [
        (["--trips", "-3"], "--trips and --vehicles must be between 1 and 100000"),
        (["watch", "--lifetime", "-5"], "--lifetime must be between 1 and 3600 seconds"),
        (["--vehicles", "-1"], "--trips and --vehicles must be between 1 and 100000"),
        (["watch", "--ramp", "-1"], "--ramp must be 0 seconds to 1 day"),
        (["watch", "--ramp", "nan"], "--ramp must be 0 seconds to 1 day"),
        (["--ramp", "1e9"], "--ramp must be 0 seconds to 1 day"),
    ])
    func aNegativeNumberGetsTheRangeError(_ arguments: [String], _ message: String) async throws {
        let result = try await BinaryRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    /// A test build is never stamped (only scripts/release.sh stamps the commit, and
    /// scripts/test-install.sh checks that one): it says so rather than naming a commit.
    @Test func versionPrintsTheVersionAndTheBuild() async throws {
        let result = try await BinaryRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "tokendash 0.3.0 (dev build)\n")
    }
}

/// `--only`: one side runs, with one backend URL.
@Suite(.timeLimit(.minutes(15))) struct OnlyOneSideEndToEndTests {
    @Test func watchRunsTheDriverAlone() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--only", "driver", "--duration", "1.5", "--update-interval", "0.5",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let providers = Set(
            result.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    return nil
                }
                return object["provider"] as? String
            })
        #expect(providers == ["driver"])
    }

    @Test func aURLForTheSideThatDoesNotRunIsRefused() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--only", "consumer", "--driver-url", "http://127.0.0.1:1/{vehicleId}",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--only consumer runs no driver: drop --driver-url"))
    }
}
