import ProviderVocabulary

/// What the flags, the config reader and docs/limits.md say about a setting, made from its entry so
/// that they cannot drift apart.
extension Setting {
    /// The flag's help: the entry's summary, then its range and its default.
    public var help: String {
        var text = entry.summary
        if let limit { text += " (\(limit))" }
        if let shown = entry.defaultValue ?? entry.defaultNote { text += " (default: \(shown))" }
        return text
    }

    /// The range as docs/limits.md's table gives it: "1 s to 1 h", "1 to 100,000"; nil for
    /// a setting that is no number.
    public var limit: String? {
        switch kind {
        case .seconds(let range):
            let (low, high) = (InputBounds.describe(range.lowest), InputBounds.describe(range.highest))
            return range.excludesLowest ? "more than \(low), at most \(high)" : "\(low) to \(high)"
        case .count(let range, .seconds):
            return
                "\(InputBounds.describe(Double(range.lowerBound))) to \(InputBounds.describe(Double(range.upperBound)))"
        case .count(let range, .items):
            return "\(SettingText.grouped(range.lowerBound)) to \(SettingText.grouped(range.upperBound))"
        default:
            return nil
        }
    }

    /// The rule a refused number broke, after the flag or key: "must be 0.05 seconds to 30 days".
    public var rule: String? {
        switch kind {
        case .seconds(let range):
            let high = InputBounds.describe(range.highest)
            let low = SettingText.number(range.lowest)
            if range.excludesLowest { return "must be more than \(low) seconds and at most \(high)" }
            return "must be \(low) \(range.lowest == 1 ? "second" : "seconds") to \(high)"
        case .count(let range, let unit):
            return "must be between \(range.lowerBound) and \(range.upperBound)\(unit == .seconds ? " seconds" : "")"
        default:
            return nil
        }
    }

    /// The rule `value` breaks, nil when it is within the range (NaN and infinities never are).
    /// Either overload judges either kind of number, so a literal's type cannot skip the check.
    public func refusal(_ value: Double) -> String? {
        switch kind {
        case .seconds(let range): range.contains(value) ? nil : rule
        case .count(let range, _):
            value.isFinite && value.rounded() == value && Double(range.lowerBound) <= value
                && value <= Double(range.upperBound) ? nil : rule
        default: nil
        }
    }

    public func refusal(_ value: Int) -> String? {
        switch kind {
        case .seconds: refusal(Double(value))
        case .count(let range, _): range.contains(value) ? nil : rule
        default: nil
        }
    }

    /// A number as text from outside (a config file's value) checked: nil when it is good, else
    /// the reason after the key. Settings that are no number pass.
    public func refusal(text: String) -> String? {
        switch kind {
        case .seconds:
            guard let seconds = Double(text), seconds.isFinite else {
                return "must be a number of seconds, got \(text)"
            }
            return refusal(seconds)
        case .count:
            guard let count = Int(text) else { return "must be a whole number, got \(text)" }
            return refusal(count)
        default:
            return nil
        }
    }
}

/// Numbers as the table's texts write them.
public enum SettingText {
    /// `12`, `0.05`: a whole number without its `.0`.
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `100,000`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
