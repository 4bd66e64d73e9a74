import Foundation

/// HTTP dates as RFC 9110 §5.6.7 says a recipient must read them: IMF-fixdate, and the obsolete
/// RFC 850 and asctime forms that old servers and proxies still send in `Date` and `Retry-After`.
/// Parsed by hand, not with DateFormatter: one formatter per form was slow, locale-dependent and
/// accepted things like a missing "GMT".
public enum HTTPDate {

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

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`,
    /// or nil. `now` decides the century of RFC 850's two-digit year: one more than 50 years ahead
    /// is taken as the past century's (RFC 9110).
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let words = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
        if words.count == 6, words[0].hasSuffix(","), words[5] == "GMT" {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard weekdays.contains(String(words[0].dropLast())), words[1].count == 2, words[3].count == 4,
                let day = number(words[1]), let month = month(words[2]), let year = number(words[3])
            else { return nil }
            return date(year: year, month: month, day: day, time: words[4])
        }
        if words.count == 4, words[0].hasSuffix(","), words[3] == "GMT" {
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false)
            guard longWeekdays.contains(String(words[0].dropLast())), parts.count == 3, parts[0].count == 2,
                parts[2].count == 2,
                let day = number(parts[0]), let month = month(parts[1]), let yy = number(parts[2])
            else { return nil }
            let thisYear = Calendar(identifier: .gregorian).dateComponents(in: gmt, from: now).year ?? 1970
            var year = (thisYear / 100) * 100 + yy
            if year > thisYear + 50 { year -= 100 }
            return date(year: year, month: month, day: day, time: words[2])
        }
        if words.count == 5 {
            // asctime: Sun Nov  6 08:49:37 1994 (the day is space-padded, hence the split above)
            guard weekdays.contains(String(words[0])), (1...2).contains(words[2].count), words[4].count == 4,
                let month = month(words[1]), let day = number(words[2]), let year = number(words[4])
            else { return nil }
            return date(year: year, month: month, day: day, time: words[3])
        }
        return nil
    }

    private static let weekdays: Set = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longWeekdays: Set = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let gmt = TimeZone(identifier: "GMT") ?? TimeZone(secondsFromGMT: 0) ?? .current

    private static func month(_ s: Substring) -> Int? { months.firstIndex(of: String(s)).map { $0 + 1 } }

    /// Digits only: `Int("+6")` would accept a sign.
    private static func number(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.count <= 4, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(s)
    }

    /// `hh:mm:ss` on the given day, GMT; nil for a day the month does not have or a time that is none.
    private static func date(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }),
            let h = number(hms[0]), let m = number(hms[1]), let s = number(hms[2]),
            h < 24, m < 60, s <= 60, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + h * 3600 + m * 60 + s))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil,
    /// http://howardhinnant.github.io/date_algorithms.html): exact for every year, no Foundation.
    /// The log reader's timestamps are counted by it too.
    package static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
