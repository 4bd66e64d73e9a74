import ArgumentParser
import ProviderVocabulary
import TokenMetrics

/// `--metrics HOST:PORT` (and `--allow-remote`) on the dashboard and `watch`: the providers'
/// series for Prometheus at `http://HOST:PORT/metrics`.
package struct MetricsOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong("metrics"),
        help:
            "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9464; port 0 picks a free one). Loopback unless --allow-remote."
    )
    package var text: String?

    @Flag(
        name: .customLong("allow-remote"),
        help: "Allow --metrics on a non-loopback address: anyone who can connect reads the fleet's health.")
    package var allowRemote = false

    /// Nil without `--metrics`; validated before `run`.
    package var address: MetricsAddress? { text.flatMap { try? MetricsAddress(parsing: $0, allowRemote: allowRemote) } }

    package func validate() throws {
        guard let text else { return }
        do { _ = try MetricsAddress(parsing: text, allowRemote: allowRemote) } catch {
            throw ValidationError(error.description)
        }
    }
}
