import ArgumentParser
import HeadlessCommands
import Settings

/// How the dashboard looks and takes input: its theme, where more themes are, and the mouse.
struct DisplayOptions: ParsableArguments {
    @Option(name: .customLong(Setting.theme.rawValue), help: Setting.theme.argumentHelp)
    var theme: String?

    @Option(name: .customLong("themes-dir"), help: "Folder with more theme files (NAME.yaml).")
    var themesDir: String?

    @Flag(
        name: .customLong("no-mouse"),
        help: "Do not take mouse clicks (leaves the terminal's own text selection alone).")
    var noMouse = false
}

/// What a dashboard session leaves behind: a recording for `replay` and `report`, and an asciicast.
struct EvidenceOptions: ParsableArguments {
    @Option(
        help:
            "Record every provider event, key and fault change to FILE (JSON lines; tokens as fingerprints and claims, never whole); `tokendash replay FILE` shows it."
    )
    var record: String?

    @Option(
        help:
            "Write the session as an asciicast v2 file while it runs (asciinema play, agg): the frames drawn, and markers for marks, ID switches, faults, refusals, Fleet Engine errors and scenario steps. Tokens are redacted, revealed or not."
    )
    var cast: String?

    @OptionGroup var castOptions: CastOptions
}

/// A scripted demo run from the start, timed or stepped.
struct ScenarioOptions: ParsableArguments {
    @Option(help: "Run a scenario from the start: a built-in's name (tokendash scenario list) or a YAML file.")
    var scenario: String?

    @Flag(help: "Scenarios wait for Space before each step, instead of running on their timings.")
    var step = false
}
