import Foundation
import Testing

/// `--metrics`, `--allow-remote` and `--shard` as a user mistypes them: the specific line, before
/// anything starts; and what a shard runs.
@Suite(.timeLimit(.minutes(15))) struct OperatorFlagsEndToEndTests {
    @Test(arguments: [
        (
            ["watch", "--metrics", "0.0.0.0:9464"],
            "--metrics 0.0.0.0:9464: not a loopback address; pass --allow-remote"
        ),
        (["--metrics", "10.0.0.1:9464"], "--metrics 10.0.0.1:9464: not a loopback address; pass --allow-remote"),
        (["watch", "--metrics", "127.0.0.1:port"], "--metrics 127.0.0.1:port: the port must be a number"),
        (["watch", "--shard", "5/4"], "--shard 5/4: K must be between 1 and N"),
        (["--shard", "two"], "--shard must be K/N (e.g. 2/4), got \"two\""),
        (
            ["watch", "--shard", "2/4", "--trips", "8"],
            "--shard 2/4 splits the fleet 4 ways: give --trips and --vehicles of at least 4"
        ),
    ])
    func aBadFlagIsOneLine(_ arguments: [String], _ message: String) async throws {
        let result = try await BinaryRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aPortInUseIsOneLineAndExit1() async throws {
        let squatter = try BackgroundProcess(BinaryRunner.binary, ["serve"], name: "serve")
        defer { Task { await squatter.stop() } }
        let taken = try #require(
            try await squatter.await(#"listening on http://(127\.0\.0\.1:\d+)"#), "\(squatter.output)")
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent(
            "taken-\(UUID().uuidString).jsonl"
        ).path
        let result = try await BinaryRunner.run(["watch", "--metrics", taken, "--duration", "5", "--record", recording])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("tokendash watch: cannot listen on \(taken): address already in use"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: recording), "no empty recording is left behind")
        await squatter.stop()
    }

    @Test func aShardRunsItsSliceOfTheFleet() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--trips", "10", "--vehicles", "4", "--shard", "2/2", "--duration", "1.5",
            "--events", "fetched",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let ids = Set(
            result.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
            })
        #expect(
            ids == ["trip-0006", "trip-0007", "trip-0008", "trip-0009", "trip-0010", "vehicle-0003", "vehicle-0004"])
    }
}
