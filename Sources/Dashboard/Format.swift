import UICore
import Foundation

/// Time and number formatting shared by the panes. Times are local unless a test fixes the zone.
enum Format {
    static func clock(_ date: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// `42 s`, `3 m 05 s`, `1 h 02 m`.
    static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded(.down))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) m \(String(s % 60).leftPadded(2)) s" }
        return "\(s / 3600) h \(String(s / 60 % 60).leftPadded(2)) m"
    }

    static func milliseconds(_ seconds: TimeInterval) -> String {
        let ms = seconds * 1000
        return ms < 10 ? String(format: "%.1f ms", ms) : "\(Int(ms.rounded())) ms"
    }

    static func percent(_ ratio: Double?) -> String {
        ratio.map { "\(Int(($0 * 100).rounded()))%" } ?? "–"
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
