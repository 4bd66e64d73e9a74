import Foundation
import ProviderVocabulary
import Synchronization
import TokenReading

/// The `Date` header's value, formatted once per second rather than once per response.
final class DateHeader: Sendable {
    // Guards the second last formatted and its text; read by every token response.
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    /// `date` is the server's now, which a demo may set off this machine's clock.
    func text(for date: Date) -> String {
        let second = Int(date.timeIntervalSince1970.rounded(.down))
        if let text = cached.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(second)))
        cached.withLock { $0 = (second, text) }
        return text
    }
}
