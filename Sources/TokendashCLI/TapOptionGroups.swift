import ArgumentParser
import ProviderVocabulary
import Settings

/// Where `tap` listens (TLS with `--cert`/`--key`) and the backend it forwards to.
struct TapForwardingOptions: ParsableArguments {
    @Option(help: "Address to listen on, HOST:PORT (port 0 picks a free one).")
    var listen = "127.0.0.1:8088"

    @Option(
        help:
            "The token backend to forward to, http(s)://HOST[:PORT]. Without it, a demo: the embedded server behind the tap, simulated devices in front (a few caching nothing)."
    )
    var upstream: String?

    @Option(help: "Serve TLS on --listen with this PEM certificate chain (with --key).")
    var cert: String?

    @Option(help: "The PEM private key of --cert.")
    var key: String?

    @Option(
        name: .customLong(Setting.upstreamKeepalive.rawValue), parsing: .unconditional,
        help: Setting.upstreamKeepalive.argumentHelp)
    var givenUpstreamKeepalive: Int?
}

/// Which requests `tap` reads as token fetches, and how it judges them and their churn.
struct TapReadingOptions: ParsableArguments {
    @Option(
        name: .customLong("consumer-route"),
        help:
            "A consumer token route, e.g. '/token/consumer/{tripId}' or '/api/token?trip={id}' (repeatable; Google's sample routes are always read)."
    )
    var consumerRoutes: [String] = []

    @Option(
        name: .customLong("driver-route"), help: "A driver token route, e.g. '/token/driver/{vehicleId}' (repeatable).")
    var driverRoutes: [String] = []

    @Option(
        name: .customLong(Setting.churnLimit.rawValue), parsing: .unconditional, help: Setting.churnLimit.argumentHelp)
    var givenChurnLimit: Int?

    @Option(
        name: .customLong(Setting.solution.rawValue),
        help:
            "Which solution's IDs the dashboard's two panes show: on-demand (trips, vehicles) or last-mile (shipments, delivery vans); --watch and --metrics show both."
    )
    var givenSolution: ProviderKind.Solution?

    @Option(name: .customLong(Setting.jwks.rawValue), help: Setting.jwks.argumentHelp)
    var jwks: String?

    @Option(name: .customLong(Setting.providerID.rawValue), help: Setting.providerID.argumentHelp)
    var providerID: String?
}

/// What `tap` prints or records, and for how long it runs.
struct TapOutputOptions: ParsableArguments {
    @Flag(help: "Print a JSON line per exchange instead of showing the dashboard.")
    var watch = false

    @Flag(help: "With --watch: print a final `churn` line listing the IDs over --churn-limit.")
    var summary = false

    @Flag(help: "Print whole tokens in tapped lines (cookies and Authorization are never printed).")
    var reveal = false

    @Option(
        help:
            "Also record every token exchange as provider events to FILE (tokens as fingerprints and claims); `tokendash replay FILE` shows it."
    )
    var record: String?

    @Option(name: .customLong(Setting.duration.rawValue), parsing: .unconditional, help: Setting.duration.argumentHelp)
    var duration: Double?
}
