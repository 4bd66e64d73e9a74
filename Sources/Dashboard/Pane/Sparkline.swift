import Foundation

/// A pane's fetches per minute as a row of block characters.
enum Sparkline {
    static let sparkBlocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// Fetches per minute over the last `minutes` minutes, oldest first.
    static func text(_ perMinute: [Int: Int], now: Date, minutes: Int) -> String {
        let current = Int(now.timeIntervalSince1970 / 60)
        let counts = ((current - minutes + 1)...current).map { perMinute[$0] ?? 0 }
        let peak = max(1, counts.max() ?? 1)
        return String(
            counts.map { c in
                c == 0 ? sparkBlocks[0] : sparkBlocks[max(1, Int((Double(c) / Double(peak) * 8).rounded(.up)))]
            })
    }
}
