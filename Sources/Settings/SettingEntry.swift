/// One setting's row in the table: what its value is, where a config file may give it, its
/// built-in default and what its help says. Texts made from it are in `Setting+Text.swift`.
public struct SettingEntry: Sendable {
    /// What a value must be; a number's kind holds its range and unit.
    public enum Kind: Sendable {
        case text, url, file, keySet, headers
        case choice([String])
        case seconds(SecondsRange)
        /// Whole numbers; `seconds` for a count of seconds (token lifetimes).
        case count(ClosedRange<Int>, unit: CountUnit)
    }

    public enum CountUnit: Sendable { case items, seconds }

    /// Where a config file may hold it.
    public enum FilePlace: Sendable { case none, profile, profileOrDefaults }

    public var kind: Kind
    public var file: FilePlace
    /// The built-in value as the flag would take it (`300`, `on-demand`); nil when there is none
    /// or it is worked out when the run starts (then `defaultNote` says how).
    public var defaultValue: String?
    public var defaultNote: String?
    /// What the flag does; `Setting.help` adds the range and the default.
    public var summary: String

    init(
        _ kind: Kind, file: FilePlace = .profile, default defaultValue: String? = nil, note: String? = nil,
        _ summary: String
    ) {
        self.kind = kind
        self.file = file
        self.defaultValue = defaultValue
        self.defaultNote = note
        self.summary = summary
    }
}

/// Seconds from `lowest` (or just above it, when `excludesLowest`) to `highest`; never NaN or infinite.
public struct SecondsRange: Sendable, Equatable {
    public var lowest: Double
    public var excludesLowest: Bool
    public var highest: Double

    public init(_ lowest: Double, excludingLowest: Bool = false, to highest: Double) {
        self.lowest = lowest
        self.excludesLowest = excludingLowest
        self.highest = highest
    }

    public func contains(_ value: Double) -> Bool {
        value.isFinite && (excludesLowest ? value > lowest : value >= lowest) && value <= highest
    }
}
