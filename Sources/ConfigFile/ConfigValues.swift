import Settings

/// One header of a profile: the value as written, and (once a profile is resolved) as sent.
public struct ConfigHeader: Equatable, Sendable {
    public var name: String
    public var template: HeaderTemplate
    /// The value with its environment variables read; empty until the profile is resolved.
    public var value: String
    public var line: Int
}

/// A setting's value: scalars are kept as the validated text the matching flag would take.
public enum SettingValue: Equatable, Sendable {
    case text(String)
    case headers([ConfigHeader])

    public var text: String? { if case .text(let text) = self { text } else { nil } }
}

/// A value and the line it is on.
public struct ConfigEntry: Equatable, Sendable {
    public var value: SettingValue
    public var line: Int
}

public struct ConfigProfile: Equatable, Sendable {
    public var name: String
    public var line: Int
    public var settings: [Setting: ConfigEntry]
}

/// Where a resolved value came from, for `config check` and for error messages.
public enum SettingSource: Equatable, Sendable, CustomStringConvertible {
    case profile(String, line: Int)
    case defaults(line: Int)

    public var line: Int {
        switch self {
        case .profile(_, let line), .defaults(let line): line
        }
    }

    public var description: String {
        switch self {
        case .profile(let name, let line): "profile \(name) (line \(line))"
        case .defaults(let line): "defaults (line \(line))"
        }
    }
}
