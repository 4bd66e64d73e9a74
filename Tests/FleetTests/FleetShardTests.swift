import Fleet
import Testing

/// `--shard K/N`: N machines together hold every ID of the fleet exactly once.
@Suite(.timeLimit(.minutes(15))) struct FleetShardTests {
    @Test(arguments: [(20_000, 4), (10, 3), (7, 7), (1001, 8), (5, 1)])
    func nShardsPartitionTheFleet(total: Int, n: Int) throws {
        var seen: [String] = []
        var sizes: [Int] = []
        for k in 1...n {
            let range = try FleetShard(parsing: "\(k)/\(n)").range(of: total)
            sizes.append(range.count)
            seen += range.map { IDSequence.fleetID(prefix: "trip", index: $0, count: total) }
        }
        let whole = (0..<total).map { IDSequence.fleetID(prefix: "trip", index: $0, count: total) }
        // Disjoint and complete, in order: concatenated, the shards are the fleet.
        #expect(seen == whole)
        #expect(sizes.max()! - sizes.min()! <= 1)
    }

    @Test func badShardsAreOneLineErrors() {
        #expect(throws: FleetShardError.outOfRange(k: 0, n: 4)) { try FleetShard(parsing: "0/4") }
        #expect(throws: FleetShardError.outOfRange(k: 5, n: 4)) { try FleetShard(parsing: "5/4") }
        #expect(throws: FleetShardError.outOfRange(k: 1, n: 0)) { try FleetShard(parsing: "1/0") }
        #expect(throws: FleetShardError.notAShard("2")) { try FleetShard(parsing: "2") }
        #expect(throws: FleetShardError.notAShard("a/b")) { try FleetShard(parsing: "a/b") }
        #expect(
            FleetShardError.outOfRange(k: 5, n: 4).description
                == "--shard 5/4: K must be between 1 and N, and N at least 1")
        #expect(FleetShard.whole.range(of: 12) == 0..<12)
    }
}
