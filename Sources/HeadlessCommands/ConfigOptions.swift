import ArgumentParser
import BoundedYAML
import ConfigFile
import Foundation

/// `--config` and `--profile`: which config file, and which of its profiles, fill in the flags
/// not given.
package struct ConfigOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong("config"),
        help:
            "Config file with profiles, defaults and key remaps. (default: $XDG_CONFIG_HOME/tokendash/config.yaml, else ~/.config/tokendash/config.yaml; none is fine)"
    )
    package var file: String?

    @Option(
        name: .customLong("profile"),
        help: "The config file's profile to use; flags still win over it. (default: the file's default-profile, if any)"
    )
    package var profile: String?

    package var location: ConfigLocation {
        ConfigLocation(flag: file, environment: ProcessInfo.processInfo.environment)
    }

    package func load() throws(FileProblem) -> ResolvedConfig {
        try ResolvedConfig.load(location, profile: profile, environment: ProcessInfo.processInfo.environment)
    }

    /// The flags with the config's values laid under them, checked together; a broken file or a
    /// clash prints one line after `prefix` and exits 2, before anything starts.
    package func resolve(_ backend: BackendOptions, prefix: String) throws -> (BackendOptions, ResolvedConfig) {
        do {
            let config = try load()
            let filled = backend.filled(from: config)
            do { try filled.validate() } catch let error as ValidationError {
                // A flag's rule broken by values that came partly from the file: say which file.
                let origin = config.profile.map { "profile \($0) of \(config.file ?? "")" } ?? (config.file ?? "")
                throw FileProblem(file: origin, line: nil, error.message)
            }
            return (filled, config)
        } catch let error as FileProblem {
            FileHandle.standardError.write(Data("\(prefix): \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
