import ArgumentParser
import Fleet

/// `--shard K/N`: this instance simulates the K-th of N disjoint slices of the fleet's IDs, so N
/// machines together are one large fleet against the same backend (and one Prometheus scrapes them all).
package struct ShardOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong("shard"),
        help:
            "Simulate only the K-th of N disjoint slices of the fleet's IDs (K/N, e.g. 2/4); IDs keep their fleet-wide numbers."
    )
    package var text: String?

    /// The whole fleet without the flag; validated before `run`, so the fallback is never a typo's.
    package var shard: FleetShard { text.flatMap { try? FleetShard(parsing: $0) } ?? .whole }

    package func validate() throws {
        guard let text else { return }
        do { _ = try FleetShard(parsing: text) } catch { throw ValidationError(error.description) }
    }

    /// Every shard must hold at least one SDK of each side.
    package func validate(trips: Int, vehicles: Int) throws {
        let n = shard.count
        guard n > 1 else { return }
        guard trips >= n, vehicles >= n else {
            throw ValidationError(
                "--shard \(shard) splits the fleet \(n) ways: give --trips and --vehicles of at least \(n)")
        }
    }
}
