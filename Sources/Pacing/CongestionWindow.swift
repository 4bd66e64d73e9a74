import Foundation

/// How many calls may be out at once, found as TCP finds its congestion window (RFC 5681): it
/// starts small, grows by one per calm answer (doubling each round trip) until the first cut,
/// then by one per round trip; a cut halves it or takes 20 % off, as the rate. The rate says how
/// often calls may start; the window is what holds a slow backend to the calls it can answer in
/// time, at once, before a single timeout: a backend 200 ms away behind 8 connections answers 40
/// calls a second, and a window of 16 keeps its queue under half a second where a rate of 1,000
/// would have queued thousands.
struct CongestionWindow: Sendable, Equatable {
    /// RFC 6928's initial window is 10 segments; a few more calls cost a backend little.
    static let initial = 16.0

    let minimum: Double
    private(set) var size: Double
    /// Below it the window grows by one per answer, above it by one per round trip.
    private(set) var threshold = Double.infinity

    init(minimum: Int) {
        self.minimum = Double(max(1, minimum))
        size = max(Self.initial, self.minimum)
    }

    /// An answer to a call made since the last cut came back calm: one more, up to `maximum`.
    mutating func calmAnswer(maximum: Double) {
        size = min(max(minimum, maximum), size < threshold ? size + 1 : size + 1 / size)
    }

    /// The backend pushed back: the window shrinks by `factor`, and grows slowly from there.
    mutating func cut(by factor: Double) {
        size = max(minimum, size * factor)
        threshold = size
    }
}
