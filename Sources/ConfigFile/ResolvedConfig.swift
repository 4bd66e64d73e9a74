import BoundedYAML
import Foundation
import KeyTable
import Settings

/// The settings the config file gives one run: the chosen profile's over `defaults`, headers
/// read from the environment, and the key table. Flags are laid over this by the caller.
public struct ResolvedConfig: Equatable, Sendable {
    public struct Value: Equatable, Sendable {
        public var value: SettingValue
        public var source: SettingSource
    }

    /// The file read; nil when there is none at the default place.
    public var file: String?
    public var profile: String?
    /// How the profile was picked: `--profile`, or the file's `default-profile`.
    public var profileChoice: String?
    public var values: [Setting: Value] = [:]
    public var keys: KeyMap = .standard
    public var remaps: [ConfigFile.KeyRemap] = []

    public static let none = ResolvedConfig()

    public subscript(setting: Setting) -> Value? { values[setting] }

    /// The text of a scalar setting.
    public func text(_ setting: Setting) -> String? { values[setting]?.value.text }

    /// Reads the file at `location` and resolves `profile` (else the file's `default-profile`).
    public static func load(_ location: ConfigLocation, profile: String?, environment: [String: String])
        throws(FileProblem) -> ResolvedConfig
    {
        guard let file = try ConfigFile.load(location) else {
            if let profile {
                throw FileProblem(file: location.path, line: nil, "--profile \(profile): there is no config file")
            }
            return .none
        }
        return try file.resolve(profile: profile, environment: environment)
    }
}

extension ConfigFile {
    public func resolve(profile requested: String?, environment: [String: String]) throws(FileProblem) -> ResolvedConfig
    {
        var resolved = ResolvedConfig(file: path, keys: keys, remaps: remaps)
        for (setting, entry) in defaults {
            resolved.values[setting] = .init(value: entry.value, source: .defaults(line: entry.line))
        }
        let chosen: ConfigProfile?
        if let requested {
            guard let profile = profiles.first(where: { $0.name == requested }) else {
                throw FileProblem(file: path, line: nil, "--profile \(requested): no such profile; \(knownProfiles)")
            }
            chosen = profile
            resolved.profileChoice = "--profile"
        } else if let name = defaultProfile {
            chosen = profiles.first { $0.name == name.name }
            resolved.profileChoice = "default-profile (line \(name.line))"
        } else {
            chosen = nil
        }
        guard let chosen else { return resolved }
        resolved.profile = chosen.name
        for (setting, entry) in chosen.settings {
            var value = entry.value
            if case .headers(var headers) = value {
                for index in headers.indices {
                    do { headers[index].value = try headers[index].template.expand(environment) } catch {
                        let reason =
                            switch error {
                            case .unset(let name): "environment variable \(name) is not set"
                            case .badDollar: "write ${NAME} to read an environment variable, or $$ for a $"
                            }
                        throw FileProblem(
                            file: path, line: headers[index].line,
                            "header \(headers[index].name) of profile \(chosen.name): \(reason)")
                    }
                }
                value = .headers(headers)
            }
            resolved.values[setting] = .init(value: value, source: .profile(chosen.name, line: entry.line))
        }
        return resolved
    }
}
