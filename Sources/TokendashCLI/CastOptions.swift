import ArgumentParser
import HeadlessCommands
import Settings

/// What an asciicast takes besides its path, for `replay --to-cast` and the dashboard's `--cast`.
struct CastOptions: ParsableArguments {
    @Option(
        name: .customLong(Setting.idleTimeLimit.rawValue), parsing: .unconditional,
        help: Setting.idleTimeLimit.argumentHelp)
    var idleTimeLimit: Double?

    /// The limit in range, and only where a cast is written (`castFlag` names the flag that writes one).
    func validate(casting: Bool, castFlag: String) throws {
        guard let idleTimeLimit else { return }
        try Setting.idleTimeLimit.check(idleTimeLimit)
        if !casting {
            throw ValidationError("\(Setting.idleTimeLimit.flag) is the cast's idle_time_limit: give \(castFlag) too")
        }
    }
}
