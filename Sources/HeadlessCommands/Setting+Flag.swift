import ArgumentParser
import Settings

/// A settings-table entry as swift-argument-parser wants it: help, default, and the check.
extension Setting {
    package var argumentHelp: ArgumentHelp { ArgumentHelp(help) }

    /// The built-in default in the flag's type. The table writes each default as the text the
    /// flag takes, and `SettingsTests` checks it against the setting's own rule, so this fails only
    /// if the table and the flag disagree on a type: on every run, not on some input.
    package func builtIn<Value: ExpressibleByArgument>(_: Value.Type = Value.self) -> Value {
        guard let text = entry.defaultValue, let value = Value(argument: text) else {
            preconditionFailure("the settings table's default for \(flag) is not a \(Value.self)")
        }
        return value
    }

    /// Refuses `value` with the flag and the table's rule, as a usage error (exit 64).
    package func check(_ value: Double) throws {
        if let refusal = refusal(value) { throw ValidationError("\(flag) \(refusal)") }
    }

    package func check(_ value: Int) throws {
        if let refusal = refusal(value) { throw ValidationError("\(flag) \(refusal)") }
    }
}
