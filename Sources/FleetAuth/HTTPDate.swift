import Foundation

/// HTTP dates as RFC 9110 §5.6.7 says a recipient must read them: IMF-fixdate, and the obsolete
/// RFC 850 and asctime forms that old servers and proxies still send in `Date` and `Retry-After`.
public enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`.
    public static func parse(_ text: String) -> Date? { RetryAfter.httpDate(text.trimmingCharacters(in: .whitespaces)) }

    /// IMF-fixdate, the one form senders must use. Built from `gmtime_r`, not a DateFormatter:
    /// the embedded server stamps every answer with it, and a formatter per call costs more than that.
    public static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
