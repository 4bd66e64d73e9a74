/// One machine's slice of a fleet, `K/N`: the K-th of N contiguous, disjoint ranges of member
/// indices, so that N machines together simulate the whole fleet, each ID on exactly one of them.
/// IDs keep their fleet-wide numbering (`trip-07501` on shard 4/8 of 20,000), so the machines'
/// series and logs name the same member the same way.
public struct FleetShard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based, as the flag writes it.
    public let index: Int
    public let count: Int

    /// The whole fleet on one machine.
    public static let whole = FleetShard(uncheckedIndex: 1, count: 1)

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Reads `K/N` with 1 <= K <= N; throws the one-line reason otherwise.
    public init(parsing text: String) throws(FleetShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { throw .notAShard(text) }
        guard n >= 1, (1...n).contains(k) else { throw .outOfRange(k: k, n: n) }
        self.init(uncheckedIndex: k, count: n)
    }

    /// The indices of this shard's members in a fleet of `total`: shard sizes differ by at most one.
    public func range(of total: Int) -> Range<Int> {
        let lower = total * (index - 1) / count
        let upper = total * index / count
        return lower..<upper
    }

    public var description: String { "\(index)/\(count)" }
}

/// Why a `--shard` value was refused, as one line.
public enum FleetShardError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAShard(String)
    case outOfRange(k: Int, n: Int)

    public var description: String {
        switch self {
        case .notAShard(let text): "--shard must be K/N (e.g. 2/4), got \"\(text)\""
        case .outOfRange(let k, let n): "--shard \(k)/\(n): K must be between 1 and N, and N at least 1"
        }
    }
}
