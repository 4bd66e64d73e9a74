import Foundation

/// One period's answers from a backend: their latencies, and how many said it is overloaded.
/// Bounded: past `sampleLimit` answers a period keeps every other one, so a period of 100,000
/// answers costs the same as one of 2,048 and its percentiles stay those of the whole period.
struct AnswerPeriod: Sendable, Equatable {
    static let sampleLimit = 2048

    private(set) var latencies: [TimeInterval] = []
    /// Keep one answer in `stride`: doubled each time the samples fill up.
    private var stride = 1
    private var seen = 0
    private(set) var answered = 0
    private(set) var overloaded = 0
    private(set) var fastest: TimeInterval?

    mutating func record(latency: TimeInterval, overloaded isOverloaded: Bool) {
        answered += 1
        if isOverloaded { overloaded += 1 }
        fastest = min(fastest ?? latency, latency)
        seen += 1
        guard seen % stride == 0 else { return }
        latencies.append(latency)
        if latencies.count >= Self.sampleLimit {
            latencies = latencies.enumerated().compactMap { $0.offset % 2 == 1 ? $0.element : nil }
            stride *= 2
        }
    }

    /// The latency `fraction` of the kept answers took at most (nearest rank), nil with none.
    func percentile(_ fraction: Double) -> TimeInterval? {
        Percentile.nearestRank(fraction, of: latencies.sorted())
    }
}
