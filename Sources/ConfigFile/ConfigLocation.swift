import Foundation

/// Where the config file is: `--config FILE`, else `$XDG_CONFIG_HOME/tokendash/config.yaml`,
/// else `~/.config/tokendash/config.yaml`. Only a file named with `--config` must exist.
public struct ConfigLocation: Equatable, Sendable {
    public var path: String
    /// Named on the command line: a missing file is an error, not "no config".
    public var explicit: Bool

    public init(path: String, explicit: Bool) {
        self.path = path
        self.explicit = explicit
    }

    public init(flag: String?, environment: [String: String]) {
        if let flag {
            self.init(path: flag, explicit: true)
            return
        }
        // The XDG rule: an empty or relative XDG_CONFIG_HOME is ignored.
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config")
        self.init(path: base + "/tokendash/config.yaml", explicit: false)
    }
}
