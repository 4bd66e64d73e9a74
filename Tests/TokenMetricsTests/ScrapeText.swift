import Foundation

/// A scrape's text format read back into `series -> value`, the series written as in the text
/// with its labels sorted (`tokendash_requests_total{provider="consumer",result="ok"}`), so a test
/// asserts what Prometheus would store rather than the exact bytes.
struct ScrapeText {
    var values: [String: Double] = [:]
    var types: [String: String] = [:]

    init(_ bytes: [UInt8]) {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " ") else { continue }
            let value = line[line.index(after: space)...]
            values[Self.normalized(String(line[..<space]))] = Double(value) ?? (value == "NaN" ? .nan : nil)
        }
    }

    /// Labels sorted by name: the registry's order is not part of the format.
    static func normalized(_ series: String) -> String {
        guard let open = series.firstIndex(of: "{"), series.hasSuffix("}") else { return series }
        let labels = series[series.index(after: open)..<series.index(before: series.endIndex)]
            .split(separator: ",").map(String.init).sorted()
        return series[..<open] + "{" + labels.joined(separator: ",") + "}"
    }

    subscript(_ series: String) -> Double? { values[Self.normalized(series)] }
}
