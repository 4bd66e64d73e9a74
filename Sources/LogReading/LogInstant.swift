import ProviderVocabulary
import TokenReading

/// An instant in an export, in microseconds since 1970-01-01T00:00:00Z. Cloud Logging writes
/// `timestamp` as RFC 3339 with up to nine fractional digits ("2024-05-01T10:00:00.123456789Z",
/// https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry); microseconds keep every
/// digit a BigQuery `TIMESTAMP` holds and fit an `Int64` for 292,000 years.
public struct LogInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(seconds: Double) { self.microseconds = Int64((seconds * 1_000_000).rounded()) }

    public static func < (a: LogInstant, b: LogInstant) -> Bool { a.microseconds < b.microseconds }

    /// Seconds from `self` to `later` (negative when `later` is earlier).
    public func seconds(to later: LogInstant) -> Double { Double(later.microseconds - microseconds) / 1_000_000 }

    public func adding(seconds: Double) -> LogInstant {
        LogInstant(microseconds: microseconds + Int64((seconds * 1_000_000).rounded()))
    }

    /// RFC 3339 in UTC with milliseconds: "2024-05-01T10:00:00.123Z".
    public var description: String {
        let secondsTotal = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
        let millis = (microseconds - secondsTotal * 1_000_000) / 1000
        let days = secondsTotal >= 0 ? secondsTotal / 86_400 : (secondsTotal - 86_399) / 86_400
        let secondOfDay = secondsTotal - days * 86_400
        let (y, m, d) = Self.civil(fromDays: days)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2))"
            + ":\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// Reads the instants the export shapes write: RFC 3339 (`T` or a space between date and time,
    /// `Z` or an offset), BigQuery's "2024-05-01 10:00:00.123456 UTC", and numbers of seconds since
    /// the epoch (BigQuery's JSON API writes a `TIMESTAMP` as a float string, e.g. "1.7145576E9").
    /// Nil for anything else: the caller names the entry's problem.
    public static func parse(_ text: String) -> LogInstant? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// `parse` of a text's bytes, as the reader finds them in an entry (no string made).
    static func parse(utf8: UnsafeBufferPointer<UInt8>) -> LogInstant? {
        var end = utf8.count
        while end > 0, utf8[end - 1] == 0x20 { end -= 1 }
        if end >= 4, UnsafeBufferPointer(rebasing: utf8[(end - 4)..<end]).elementsEqual(" UTC".utf8) { end -= 4 }
        let bytes = UnsafeBufferPointer(rebasing: utf8[..<end])
        // Four digits and a '-' are a date, never a whole number (Double's reading would stop at
        // the '-'): every RFC 3339 time skips making a string to ask.
        let isDate =
            bytes.count > 4 && bytes[4] == UInt8(ascii: "-") && bytes[..<4].allSatisfy { (0x30...0x39).contains($0) }
        if !isDate, let number = Double(String(decoding: bytes, as: UTF8.self)) {
            return epochNumber(number)
        }
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.number(digits: 4), reader.skip("-"), let month = reader.number(digits: 2),
            reader.skip("-"), let day = reader.number(digits: 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        guard reader.skip("T") || reader.skip("t") || reader.skip(" ") else { return nil }
        guard let hour = reader.number(digits: 2), reader.skip(":"), let minute = reader.number(digits: 2),
            reader.skip(":"), let second = reader.number(digits: 2), hour < 24, minute < 60, second <= 60
        else { return nil }
        var micros: Int64 = 0
        if reader.skip(".") || reader.skip(",") {
            var digits = 0
            while let digit = reader.digit() {
                if digits < 6 { micros = micros * 10 + Int64(digit) }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if reader.atEnd || reader.skip("Z") || reader.skip("z") {
        } else if let sign = reader.sign() {
            guard let oh = reader.number(digits: 2) else { return nil }
            _ = reader.skip(":")
            let om = reader.number(digits: 2) ?? 0
            offsetSeconds = sign * Int64(oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard reader.atEnd else { return nil }
        let days = Int64(HTTPDate.daysSinceEpoch(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetSeconds
        return LogInstant(microseconds: seconds * 1_000_000 + micros)
    }

    /// A number read as seconds since the epoch, or milliseconds or microseconds when it is too
    /// large to be seconds of this millennium.
    static func epochNumber(_ number: Double) -> LogInstant? {
        guard number.isFinite, abs(number) < 1e17 else { return nil }
        if abs(number) >= 1e14 { return LogInstant(microseconds: Int64(number)) }
        if abs(number) >= 1e11 { return LogInstant(microseconds: Int64((number * 1000).rounded())) }
        return LogInstant(seconds: number)
    }

    // Howard Hinnant's civil-from-days (proleptic Gregorian calendar), the inverse of
    // `HTTPDate.daysSinceEpoch`, http://howardhinnant.github.io/date_algorithms.html.
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

private struct DigitReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var atEnd: Bool { index >= bytes.count }

    mutating func digit() -> Int? {
        guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 0x30)
    }

    mutating func number(digits: Int) -> Int? {
        var value = 0
        for _ in 0..<digits {
            guard let d = digit() else { return nil }
            value = value * 10 + d
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
