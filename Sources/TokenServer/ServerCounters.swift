import Foundation
import Pacing
import ProviderVocabulary
import Synchronization

/// Counts requests and outcomes and keeps recent mint latencies for percentiles.
final class ServerCounters: Sendable {
    private struct State {
        var stats = ServerStats()
        /// A ring of the most recent mint latencies in seconds; bounded so a long run costs no memory.
        var latencies: [Double] = []
        var next = 0
    }

    static let latencyWindow = 8192

    // Guards all counters; every request handler writes here.
    private let state = Mutex(State())
    /// The same mints as Prometheus series, for `/metrics`.
    let metrics = ServerMetrics()

    func request(_ kind: ProviderKind) { state.withLock { $0.stats[kind].requests += 1 } }
    func error(_ kind: ProviderKind) { state.withLock { $0.stats[kind].errors += 1 } }
    func faulted(_ kind: ProviderKind) { state.withLock { $0.stats[kind].faulted += 1 } }
    func otherRequest() { state.withLock { $0.stats.otherRequests += 1 } }

    func minted(_ kind: ProviderKind, seconds: Double) {
        metrics.minted(kind, seconds: seconds)
        state.withLock { s in
            s.stats[kind].minted += 1
            if s.latencies.count < Self.latencyWindow {
                s.latencies.append(seconds)
            } else {
                s.latencies[s.next] = seconds
            }
            s.next = (s.next + 1) % Self.latencyWindow
        }
    }

    var snapshot: ServerStats {
        let (stats, latencies) = state.withLock { ($0.stats, $0.latencies) }
        var result = stats
        let sorted = latencies.sorted()
        result.mintLatencyP50Milliseconds = Percentile.nearestRank(0.50, of: sorted).map { $0 * 1000 }
        result.mintLatencyP99Milliseconds = Percentile.nearestRank(0.99, of: sorted).map { $0 * 1000 }
        return result
    }
}
