import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date in any of the three
/// forms a recipient must accept (§5.6.7): IMF-fixdate, the obsolete RFC 850 form and asctime.
/// Parsed by hand, not with DateFormatter: one formatter per form was slow, locale-dependent and
/// accepted things like a missing "GMT".
public enum RetryAfter {
    /// The header as whole seconds from `now`, capped at an hour (a token never lives longer, so a
    /// longer wait is a misconfigured server); nil when absent or unreadable; a date in the past is 0.
    public static func seconds(_ value: String?, now: Date) -> Int? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let cap = JWTInspector.maximumLifetime
        if text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // More digits than an Int holds is still "a very long time": capped, not refused.
            return min(Int(text) ?? cap, cap)
        }
        guard let date = httpDate(text, now: now) else { return nil }
        let seconds = date.timeIntervalSince(now).rounded(.up)
        return Int(min(max(seconds, 0), TimeInterval(cap)))
    }

    /// An HTTP-date in any of its three forms, or nil. `now` decides the century of RFC 850's
    /// two-digit year: one more than 50 years ahead is taken as the past century's (RFC 9110).
    public static func httpDate(_ text: String, now: Date = Date()) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
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

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
