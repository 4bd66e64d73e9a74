import Foundation
import ProviderVocabulary

/// Durations as scenario files write them: `5s`, `500ms`, `2m`, `1h`, `1m30s`, or a bare number
/// of seconds; `+`/`-` in front where a sign means something (the server clock's offset).
public enum ScenarioDuration {
    /// Seconds, or nil when `text` is not a duration. A sign is only accepted when `signed`.
    public static func parse(_ text: String, signed: Bool = false) -> TimeInterval? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign = 1.0
        if let first = rest.first, first == "+" || first == "-" {
            guard signed else { return nil }
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        if let bare = Double(rest), bare.isFinite, bare >= 0 { return sign * bare }
        var total = 0.0
        var parts = 0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            switch unit {
            case "ms": total += value / 1000
            case "s": total += value
            case "m", "min": total += value * 60
            case "h": total += value * 3600
            default: return nil
            }
            parts += 1
        }
        // 1e400h is no number: say so, rather than pass infinity on.
        return parts > 0 && total.isFinite ? sign * total : nil
    }

    /// `90` -> "1m30s", `0.5` -> "500ms": how the banner and messages write a duration.
    public static func format(_ seconds: TimeInterval) -> String {
        let sign = seconds < 0 ? "-" : ""
        let s = abs(seconds)
        if s < 1 && s > 0 { return sign + "\(Int((s * 1000).rounded()))ms" }
        let whole = Int.clamping(s.rounded())
        let (h, m, sec) = (whole / 3600, whole % 3600 / 60, whole % 60)
        var out = ""
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)m" }
        if sec > 0 || out.isEmpty { out += "\(sec)s" }
        return sign + out
    }
}
