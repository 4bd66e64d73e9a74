import Foundation
import Synchronization

/// Where the sections' results go: the human table (the default) or, with `--json`, one JSON
/// object per headline figure on its own line, for scripts and CI to compare against bounds.
enum BenchReport {
    /// Set once by main before any section runs.
    private static let json = Atomic<Bool>(false)

    static func useJSON() { json.store(true, ordering: .relaxed) }
    static var isJSON: Bool { json.load(ordering: .relaxed) }

    /// A headline figure beside its baseline measured in the same run. `ratio` is value / baseline.
    static func figure(_ name: String, value: Double, unit: String, baseline: Double?) {
        guard isJSON else { return }
        var object: [String: Any] = ["figure": name, "value": rounded(value), "unit": unit]
        if let baseline {
            object["baseline"] = rounded(baseline)
            object["ratio"] = baseline == 0 ? NSNull() : rounded(value / baseline) as Any
        } else {
            object["baseline"] = NSNull()
            object["ratio"] = NSNull()
        }
        // Sorted keys: the same figure reads the same from run to run.
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
            let line = String(data: data, encoding: .utf8)
        else { return }
        print(line)
    }

    /// Table lines and notes, shown only in the human format.
    static func say(_ text: String) {
        if !isJSON { print(text) }
    }

    private static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return (value * 1000).rounded() / 1000
    }
}
