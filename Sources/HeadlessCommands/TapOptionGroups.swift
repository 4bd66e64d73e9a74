import ArgumentParser
import ProviderVocabulary
import Settings

/// Where `tap` listens (TLS with `--cert`/`--key`) and the backend it forwards to.
package struct TapForwardingOptions: ParsableArguments {
    package init() {}

    @Option(help: "Address to listen on, HOST:PORT (port 0 picks a free one).")
    package var listen = "127.0.0.1:8088"

    @Option(
        help:
            "The token backend to forward to, http(s)://HOST[:PORT]. Without it, a demo: the embedded server behind the tap, simulated devices in front (a few caching nothing)."
    )
    package var upstream: String?

    @Option(help: "Serve TLS on --listen with this PEM certificate chain (with --key).")
    package var cert: String?

    @Option(help: "The PEM private key of --cert.")
    package var key: String?

    @Option(
        name: .customLong(Setting.upstreamKeepalive.rawValue), parsing: .unconditional,
        help: Setting.upstreamKeepalive.argumentHelp)
    package var givenUpstreamKeepalive: Int?
}

/// Which requests `tap` reads as token fetches, and how it judges them and their churn.
package struct TapReadingOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong("consumer-route"),
        help:
            "A consumer token route, e.g. '/token/consumer/{tripId}' or '/api/token?trip={id}' (repeatable; Google's sample routes are always read)."
    )
    package var consumerRoutes: [String] = []

    @Option(
        name: .customLong("driver-route"), help: "A driver token route, e.g. '/token/driver/{vehicleId}' (repeatable).")
    package var driverRoutes: [String] = []

    @Option(
        name: .customLong(Setting.churnLimit.rawValue), parsing: .unconditional, help: Setting.churnLimit.argumentHelp)
    package var givenChurnLimit: Int?

    @Option(
        name: .customLong(Setting.solution.rawValue),
        help:
            "Which solution's IDs the dashboard's two panes show: on-demand (trips, vehicles) or last-mile (shipments, delivery vans); --watch and --metrics show both."
    )
    package var givenSolution: ProviderKind.Solution?

    @Option(name: .customLong(Setting.jwks.rawValue), help: Setting.jwks.argumentHelp)
    package var jwks: String?

    @Option(name: .customLong(Setting.providerID.rawValue), help: Setting.providerID.argumentHelp)
    package var providerID: String?
}

/// What `tap` prints or records, and for how long it runs.
package struct TapOutputOptions: ParsableArguments {
    package init() {}

    @Flag(help: "Print a JSON line per exchange instead of showing the dashboard.")
    package var watch = false

    @Flag(help: "With --watch: print a final `churn` line listing the IDs over --churn-limit.")
    package var summary = false

    @Flag(help: "Print whole tokens in tapped lines (cookies and Authorization are never printed).")
    package var reveal = false

    @Option(
        help:
            "Also record every token exchange as provider events to FILE (tokens as fingerprints and claims); `tokendash replay FILE` shows it."
    )
    package var record: String?

    @Option(name: .customLong(Setting.duration.rawValue), parsing: .unconditional, help: Setting.duration.argumentHelp)
    package var duration: Double?
}
