/// Order statistics of measured samples: the one place a percentile is computed (the pacing's
/// answer latencies, the fleet rows, the embedded server's stats and the benchmarks all report
/// p50 and p99). In Pacing, the leaf module the pacing's own percentiles live in.
public enum Percentile {
    /// The nearest-rank percentile of ascending `sorted` samples: the smallest sample at or above
    /// the fraction `p` (0...1) of them, so it is always a value that was measured. nil when empty.
    public static func nearestRank(_ p: Double, of sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
